package tasks

// CreateInput is TaskCreate's input; the tags of the tools' input types give their schemas.
type CreateInput struct {
	Subject     string `json:"subject" jsonschema:"what the task is, one line of 1-200 characters"`
	Description string `json:"description,omitempty" jsonschema:"details, acceptance criteria, notes; may be empty, at most 64 KiB"`
}

// GetInput is TaskGet's input.
type GetInput struct {
	TaskID int `json:"taskid" jsonschema:"the task's id as returned by TaskCreate or TaskList"`
}

// UpdateInput is TaskUpdate's input: the task and the fields to change.
type UpdateInput struct {
	TaskID int `json:"taskid" jsonschema:"the task to change; the id itself cannot change"`
	UpdateFields
}
