package schema

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"reflect"
	"time"
)

// duplicate finds two equal items among the first n of v, whose items
// node elem reads. Items compare by the values they hold: pointers are
// followed, and a json.RawMessage compares the JSON value it holds, not its
// bytes (1 and 1.0, or the same object with its keys in another order, are
// equal). Of several pairs, it reports the one whose later item comes first.
func duplicate(elem *node, v reflect.Value, n int) (int, int, bool) {
	if v.Type().Elem() == rawMessageType {
		items := make([]any, n)
		for i := range n {
			if json.Unmarshal(v.Index(i).Bytes(), &items[i]) != nil {
				items[i] = string(v.Index(i).Bytes())
			}
		}
		v, n, elem = reflect.ValueOf(items), len(items), nil
	}
	if et := v.Type().Elem(); plainComparable(et) || et.Kind() == reflect.Pointer && plainComparable(et.Elem()) {
		seen := make(map[any]int, n)
		for i := range n {
			var key any = nilItem{}
			switch item := v.Index(i); {
			case item.Kind() != reflect.Pointer:
				key = item.Interface()
			case !item.IsNil():
				key = item.Elem().Interface()
			}
			if j, ok := seen[key]; ok {
				return j, i, true
			}
			seen[key] = i
		}
		return 0, 0, false
	}
	// Items that == cannot compare are grouped by a hash of the values they
	// hold, which equal items share (hashValue), and compared with
	// reflect.DeepEqual only within their group: n different items cost n
	// hashes rather than n²/2 comparisons. An item that cannot be hashed
	// (see maxHashSteps) is compared with every other.
	equal := func(i, j int) bool {
		return reflect.DeepEqual(v.Index(i).Interface(), v.Index(j).Interface())
	}
	groups := make(map[uint64][]int)
	var unhashed []int
	var h maphash.Hash
	for i := range n {
		h.Reset()
		if !hashValue(&h, elem, v.Index(i), nil) {
			for j := range i {
				if equal(j, i) {
					return j, i, true
				}
			}
			unhashed = append(unhashed, i)
			continue
		}
		sum := h.Sum64()
		first := i
		for _, j := range groups[sum] {
			if equal(j, i) {
				first = j
				break
			}
		}
		for _, j := range unhashed {
			if j < first && equal(j, i) {
				first = j
				break
			}
		}
		if first < i {
			return first, i, true
		}
		groups[sum] = append(groups[sum], i)
	}
	return 0, 0, false
}

// maxHashSteps bounds the values hashValue walks inside a value of a type
// that reads itself (UnmarshalJSON, UnmarshalText): such a value may be
// cyclic, or share parts, and its walk never end. The decoder's own values
// are trees no larger than the JSON they were read from.
const maxHashSteps = 1 << 12

// hashValue writes to h a hash of v, which node n read (nil for a value
// decoded into an any), such that values that reflect.DeepEqual finds equal
// have equal hashes: it hashes part of what DeepEqual compares (the JSON
// fields of a struct, not the others), or all of it, and nothing else. It
// reports false when v cannot be hashed within budget steps; a nil budget
// means maxHashSteps for each value of a type that reads itself and no
// limit elsewhere.
func hashValue(h *maphash.Hash, n *node, v reflect.Value, budget *int) bool {
	if budget != nil {
		if *budget <= 0 {
			return false
		}
		*budget--
	}
	if n != nil {
		switch n.kind {
		case kindStruct:
			for _, f := range n.fields {
				fv, ok := fieldValueNoAlloc(v, f)
				if !ok {
					h.WriteByte(0)
					continue
				}
				h.WriteByte(1)
				if !hashValue(h, f.node, fv, budget) {
					return false
				}
			}
			return true
		case kindPointer:
			if v.IsNil() {
				h.WriteByte(0)
				return true
			}
			h.WriteByte(1)
			return hashValue(h, n.elem, v.Elem(), budget)
		case kindSlice, kindArray:
			hashInt(h, uint64(v.Len()))
			for i := range v.Len() {
				if !hashValue(h, n.elem, v.Index(i), budget) {
					return false
				}
			}
			return true
		case kindMap:
			return hashMap(h, n.elem, v, budget)
		case kindTime:
			// DeepEqual compares the fields of a time.Time, and equal
			// fields make the same instant. (Its *Location may be Local,
			// which is large to walk.)
			if v.CanInterface() {
				t := v.Interface().(time.Time)
				hashInt(h, uint64(t.Unix()))
				hashInt(h, uint64(t.Nanosecond()))
				return true
			}
		case kindText, kindCustom:
			if budget == nil {
				steps := maxHashSteps
				budget = &steps
			}
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		hashInt(h, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		hashInt(h, v.Uint())
	case reflect.Float32, reflect.Float64:
		hashFloat(h, v.Float())
	case reflect.Complex64, reflect.Complex128:
		hashFloat(h, real(v.Complex()))
		hashFloat(h, imag(v.Complex()))
	case reflect.String:
		hashInt(h, uint64(v.Len()))
		h.WriteString(v.String())
	case reflect.Slice, reflect.Array:
		hashInt(h, uint64(v.Len()))
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			h.Write(v.Bytes())
			break
		}
		for i := range v.Len() {
			if !hashValue(h, nil, v.Index(i), budget) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !hashValue(h, nil, v.Field(i), budget) {
				return false
			}
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			h.WriteByte(0)
			break
		}
		h.WriteByte(1)
		return hashValue(h, nil, v.Elem(), budget)
	case reflect.Map:
		return hashMap(h, nil, v, budget)
	}
	// Channels, functions and unsafe pointers: DeepEqual compares them by
	// identity, which the hash may leave out.
	return true
}

// hashMap hashes a map for hashValue, whose elements node elem reads: the
// sum of the hashes of its entries, which does not depend on their order.
func hashMap(h *maphash.Hash, elem *node, v reflect.Value, budget *int) bool {
	var entry maphash.Hash
	entry.SetSeed(h.Seed())
	var sum uint64
	for it := v.MapRange(); it.Next(); {
		entry.Reset()
		if !hashValue(&entry, nil, it.Key(), budget) || !hashValue(&entry, elem, it.Value(), budget) {
			return false
		}
		sum += entry.Sum64()
	}
	hashInt(h, uint64(v.Len()))
	hashInt(h, sum)
	return true
}

func hashInt(h *maphash.Hash, x uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], x)
	h.Write(b[:])
}

// hashFloat hashes a float as == compares it: -0 is 0.
func hashFloat(h *maphash.Hash, f float64) {
	if f == 0 {
		f = 0
	}
	hashInt(h, math.Float64bits(f))
}

// nilItem is the key of a nil pointer item in duplicate.
type nilItem struct{}

// plainComparable reports whether == on values of type t compares the
// values they hold: t is comparable and holds no pointer or interface, whose
// == would compare addresses or dynamic types.
func plainComparable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.UnsafePointer, reflect.Chan,
		reflect.Map, reflect.Slice, reflect.Func:
		return false
	case reflect.Array:
		return plainComparable(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainComparable(t.Field(i).Type) {
				return false
			}
		}
	}
	return true
}
