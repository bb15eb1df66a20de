package tool

import "encoding/json"

// CheckArgs checks arguments as a call's are checked — repaired, validated
// against the input schema, decoded, and put through the Validate methods —
// without running the handler. It returns a *ValidationError, or nil. An
// agent uses it to refuse a person's edited arguments before anything runs.
func (t *Tool[In, Out]) CheckArgs(args json.RawMessage) (err error) {
	defer t.recoverInto(&err, "")
	_, _, err = t.decode(args, "")
	return err
}

// CheckArgs checks arguments as a call's are checked — repaired, held to
// the limits and given to the validator — without running the handler. It
// returns a *ValidationError, or nil.
func (t *RawTool) CheckArgs(args json.RawMessage) (err error) {
	defer t.recoverInto(&err, "")
	args, _ = t.repairWhole(args)
	return t.check(args, "")
}
