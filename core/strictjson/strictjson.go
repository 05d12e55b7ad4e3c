// Package strictjson decodes JSON the way cairn checks what it is given: a field the target
// does not have is an error, and so is anything after the value.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailing means a valid value was followed by more data, such as a second object.
var ErrTrailing = errors.New("trailing data after the JSON value")

// Decode unmarshals data into v so that a misspelt field or a pasted second value is refused
// rather than silently dropped.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailing
	}
	return nil
}
