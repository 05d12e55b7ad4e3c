package spaces

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cairn-dev/cairn/core/strictjson"
)

// UnmarshalJSON decodes SearchWorkspaceTasks' tool input: task_id may be written as a string or
// as an integer (a model writes a task's id either way); unknown fields are refused.
func (in *SearchInput) UnmarshalJSON(b []byte) error {
	type plain SearchInput
	var aux struct {
		*plain
		TaskID flexID `json:"task_id,omitempty"`
	}
	aux.plain = (*plain)(in)
	if err := strictjson.Decode(b, &aux); err != nil {
		return err
	}
	in.TaskID = string(aux.TaskID)
	return nil
}

// flexID accepts an id written as a string or as an integer.
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	var n int64
	if err := json.Unmarshal(b, &n); err == nil {
		*f = flexID(strconv.FormatInt(n, 10))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("task_id: %s given, a string or an integer of at most 19 digits is needed", b)
	}
	*f = flexID(s)
	return nil
}
