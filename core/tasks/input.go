package tasks

// The tags of the tools' input types give their schemas. CreateInput and UpdateFields, which
// spell a task's fields, are in fields.go beside Task.

// GetInput is TaskGet's input.
type GetInput struct {
	TaskID int `json:"taskid" jsonschema:"the task's id as returned by TaskCreate or TaskList"`
}

// UpdateInput is TaskUpdate's input: the task and the fields to change.
type UpdateInput struct {
	TaskID int `json:"taskid" jsonschema:"the task to change; the id itself cannot change"`
	UpdateFields
}
