package tasks

// The agent tools decode their JSON input into these types; their tags give the tools' input
// schemas, so the schema a model sees and the fields the task list takes are one description.

// CreateInput is TaskCreate's input.
type CreateInput struct {
	Subject     string `json:"subject" jsonschema:"what the task is, one line of 1-200 characters"`
	Description string `json:"description,omitempty" jsonschema:"details, acceptance criteria, notes; may be empty, at most 64 KiB"`
}

// ListInput is TaskList's input: it takes none.
type ListInput struct{}

// GetInput is TaskGet's input.
type GetInput struct {
	TaskID int `json:"taskid" jsonschema:"the task's id as returned by TaskCreate or TaskList"`
}

// UpdateInput is TaskUpdate's input: the task and the fields to change.
type UpdateInput struct {
	TaskID int `json:"taskid" jsonschema:"the task to change; the id itself cannot change"`
	UpdateFields
}
