package schema

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

type valuePlain struct {
	Name   string            `json:"name"`
	Age    *int              `json:"age,omitempty"`
	Tags   []string          `json:"tags,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Items  []decLevel        `json:"items,omitempty"`
	Fixed  [2]int            `json:"fixed,omitzero"`
}

type valueRefined struct {
	Lo int `json:"lo"`
	Hi int `json:"hi"`
}

func (v *valueRefined) Validate() error {
	if v.Lo > v.Hi {
		return errors.New("lo must not exceed hi")
	}
	return nil
}

type valueText struct {
	Text lowerText `json:"text"`
}

// valueDeep runs a method only in a map value's slice's item.
type valueDeep struct {
	Deep map[string][]*valueRefined `json:"deep"`
}

// TestDecodeValue checks that DecodeValue returns what Decode fills in, that
// values of a plain type, decoded in reused memory, share nothing, and that
// types whose methods run are not reused.
func TestDecodeValue(t *testing.T) {
	plain := mustFor[valuePlain](t)
	if !plain.plan.plain {
		t.Error("valuePlain is not plain")
	}
	for _, v := range []*Validator{mustFor[valueRefined](t), mustFor[valueText](t), mustFor[diffCustom](t), mustFor[refinedOuter](t), mustFor[valueDeep](t)} {
		if v.plan.plain {
			t.Errorf("%s is plain; its methods run while it is decoded", v.Type())
		}
	}

	docs := []string{
		`{"name":"a","age":1,"tags":["x","y"],"labels":{"k":"v"},"items":[{"depth":1}],"fixed":[1,2]}`,
		`{"name":"b"}`,
		`{"name":"c","tags":[],"items":[{}]}`,
	}
	var got []valuePlain
	for _, doc := range docs {
		v, nulls, err := DecodeValue[valuePlain](plain, []byte(doc))
		if err != nil || nulls != nil {
			t.Fatalf("DecodeValue(%s) = %v, %v", doc, nulls, err)
		}
		got = append(got, v)
	}
	for i, doc := range docs {
		var want valuePlain
		if err := plain.Decode([]byte(doc), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("DecodeValue(%s) = %+v, want %+v (as Decode)", doc, got[i], want)
		}
	}
	// Changing one value changes no other.
	got[0].Tags[0], got[0].Labels["k"], *got[0].Age = "changed", "changed", 99
	if again, _, _ := DecodeValue[valuePlain](plain, []byte(docs[0])); again.Tags[0] != "x" || again.Labels["k"] != "v" || *again.Age != 1 {
		t.Errorf("a value shares memory with an earlier one: %+v", again)
	}

	if v, _, err := DecodeValue[valuePlain](plain, []byte(`{"name":1}`)); err == nil || !reflect.DeepEqual(v, valuePlain{}) {
		t.Errorf("DecodeValue of an invalid document = %+v, %v; want the zero value and an error", v, err)
	}
	if _, _, err := DecodeValue[valueRefined](plain, []byte(`{}`)); err == nil {
		t.Error("DecodeValue with another type's validator succeeded")
	}
	refined := mustFor[valueRefined](t)
	if _, _, err := DecodeValue[valueRefined](refined, []byte(`{"lo":2,"hi":1}`)); err == nil {
		t.Error("DecodeValue skipped a Validate method")
	}
	if v, _, err := DecodeValue[valueText](mustFor[valueText](t), []byte(`{"text":"ABC"}`)); err != nil || v.Text != "abc" {
		t.Errorf("DecodeValue with UnmarshalText = %+v, %v", v, err)
	}
}

// TestDecodeValueConcurrent decodes in reused memory from many goroutines;
// run it with -race.
func TestDecodeValueConcurrent(t *testing.T) {
	v := mustFor[valuePlain](t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				name := fmt.Sprintf("g%d-%d", g, i)
				doc := fmt.Sprintf(`{"name":%q,"tags":[%q],"labels":{%q:%q}}`, name, name, name, name)
				got, _, err := DecodeValue[valuePlain](v, []byte(doc))
				if err != nil || got.Name != name || got.Tags[0] != name || got.Labels[name] != name {
					t.Errorf("DecodeValue(%s) = %+v, %v", doc, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
