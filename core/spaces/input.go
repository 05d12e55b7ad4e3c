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
		TaskID json.RawMessage `json:"task_id,omitempty"`
	}
	aux.plain = (*plain)(in)
	if err := strictjson.Decode(b, &aux); err != nil || aux.TaskID == nil {
		return err
	}
	var n int64
	if err := json.Unmarshal(aux.TaskID, &n); err == nil {
		in.TaskID = strconv.FormatInt(n, 10)
	} else if err := json.Unmarshal(aux.TaskID, &in.TaskID); err != nil {
		return fmt.Errorf("task_id: %s given, a string or an integer of at most 19 digits is needed", aux.TaskID)
	}
	return nil
}
