package spaces

import (
	"context"
	"io"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
)

// What another store of spaces (core/spaces/pgstore) needs so its answers are spaces.db's: the
// import format decoded, validated and prepared exactly as Import prepares it, a comment prepared
// as AddComment prepares it, the search input's checks and the ref parser.

// SpaceRecord is a space line of the import format.
type SpaceRecord struct {
	ID    ID
	Name  string
	Owner string
}

// MemberRecord is a member line of the import format.
type MemberRecord struct {
	Space ID
	User  string
}

// TaskRecord is a task line of the import format: CreatedAt normalised as spaces.db stores it,
// DisplayTitle the title redacted (what answers show).
type TaskRecord struct {
	ID           ID
	Space        ID
	Title        string
	Status       string
	Parent       ID // "" for none
	CreatedAt    string
	DisplayTitle string
}

// PreparedComment is a comment with everything spaces.db stores for it: its author redacted, its
// time normalised (CreatedAt, and AtNS, the order of answers), its id's order key, its attachments
// as JSON and, when Indexed, its display and index texts (Texts).
type PreparedComment struct {
	Comment
	IDKey           string
	AtNS            int64
	AttachmentsJSON string
	Indexed         bool
	Display, Index  string
}

// PreparedRecord is one line of the import format: Type is space, member, task or comment, and
// the field of that name is set.
type PreparedRecord struct {
	Type    string
	Space   SpaceRecord
	Member  MemberRecord
	Task    TaskRecord
	Comment PreparedComment
}

// exported turns a record prepared by prepareTexts into a PreparedRecord.
func (rec *record) exported() PreparedRecord {
	p := PreparedRecord{Type: rec.kind}
	switch rec.kind {
	case "space":
		p.Space = SpaceRecord{ID: rec.space.ID, Name: rec.space.Name, Owner: rec.space.Owner}
	case "member":
		p.Member = MemberRecord{Space: rec.member.Space, User: rec.member.User}
	case "task":
		p.Task = TaskRecord{ID: rec.task.ID, Space: rec.task.Space, Title: rec.task.Title, Status: rec.task.Status,
			Parent: rec.task.Parent, CreatedAt: rec.task.CreatedAt, DisplayTitle: rec.dtitle}
	case "comment":
		c := rec.comment
		c.CreatedAt = formatTime(rec.at)
		p.Comment = PreparedComment{Comment: c, IDKey: idKey(c.ID), AtNS: rec.at.UnixNano(), AttachmentsJSON: rec.attJSON,
			Indexed: rec.itext.Valid, Display: rec.dtext.String, Index: rec.itext.String}
	}
	return p
}

// ReadImport reads the JSON Lines of the space import format from r as Import does (the same
// line cap, decoding, redaction and texts, on the same parsing goroutines) and hands each batch
// of at most BatchSize records to each, in input order, with the bytes of r read so far. It gives
// the number of lines read and the bad lines skipped; an error from each, a read error or ctx
// ending stops it.
func ReadImport(ctx context.Context, r io.Reader, each func(batch []PreparedRecord, read int64) error) (lines int, bad []BadLine, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Store{redactor: redact.New(), maxLine: defaultMaxLine}
	batches := make(chan parsedBatch, 2)
	var read readReport
	go func() {
		defer close(batches)
		read = s.readBatches(ctx, r, batches)
	}()
	for b := range batches {
		if err == nil {
			err = errs.Stopped(ctx, "space import")
		}
		if err != nil {
			continue // drain, so the reader stops
		}
		out := make([]PreparedRecord, len(b.recs))
		for i := range b.recs {
			out[i] = b.recs[i].exported()
		}
		if err = each(out, b.done); err != nil {
			cancel()
		}
	}
	if err == nil {
		err = read.err
	}
	if err == nil {
		err = errs.Stopped(ctx, "space import")
	}
	return read.lines, append([]BadLine{}, read.bad...), err
}

// PrepareComment validates c (an INVALID_INPUT error says what is wrong) and prepares it as
// AddComment stores it, redacting with r. c.ID must be set.
func PrepareComment(r *redact.Redactor, c Comment) (PreparedComment, error) {
	at, err := c.validate()
	if err != nil {
		return PreparedComment{}, errs.Invalidf("%v", err)
	}
	rec := record{kind: "comment", comment: c, at: at}
	s := &Store{redactor: r}
	if err := s.prepareTexts(&rec); err != nil {
		return PreparedComment{}, err
	}
	return rec.exported().Comment, nil
}

// Validate checks a search input alone, as SearchWorkspaceTasks does before it reads anything,
// and sets the default limit of a query.
func (in *SearchInput) Validate() error { return in.validate() }

// ParseRef reads "prefix:ID" or a bare ID (a task or comment ref), with the message
// SearchWorkspaceTasks gives for a bad one.
func ParseRef(prefix, ref string) (ID, error) { return parseRef(prefix, ref) }

// PrepareBatch prepares a batch's tasks and comments for space as ImportBatch writes them (each
// task put in space, texts redacted with r), in batch order: tasks, then comments. It checks
// what ImportBatch checks without a store (ids, a task naming another space, each comment's
// fields); what needs the store (records of another space, a comment's task) is the caller's.
func PrepareBatch(r *redact.Redactor, space ID, b Batch) ([]PreparedRecord, error) {
	if err := checkID("space", space); err != nil {
		return nil, errs.Invalidf("%v", err)
	}
	if len(b.Tasks)+len(b.Comments) > MaxBatchRecords {
		return nil, errs.Invalidf("a batch holds at most %d records, this one %d", MaxBatchRecords, len(b.Tasks)+len(b.Comments))
	}
	s := &Store{redactor: r}
	out := make([]PreparedRecord, 0, len(b.Tasks)+len(b.Comments))
	for _, t := range b.Tasks {
		if err := checkID("task", t.ID); err != nil {
			return nil, errs.Invalidf("%v", err)
		}
		if t.Space != "" && t.Space != space {
			return nil, errs.New(errs.Forbidden, "task:%s names space %s in a push to space %s", t.ID, t.Space, space)
		}
		t.Space = space
		rec := record{kind: "task", task: taskRec(t)}
		if err := s.prepareTexts(&rec); err != nil {
			return nil, err
		}
		out = append(out, rec.exported())
	}
	for _, c := range b.Comments {
		at, err := c.validate()
		if err != nil {
			return nil, errs.Invalidf("comment %s: %v", c.ID, err)
		}
		if c.Attachments == nil {
			c.Attachments = []string{}
		}
		rec := record{kind: "comment", comment: c, at: at}
		if err := s.prepareTexts(&rec); err != nil {
			return nil, err
		}
		out = append(out, rec.exported())
	}
	return out, nil
}

// CheckID checks an id as the import format does (1..200 bytes of UTF-8 without white space,
// control characters or ':'); field names it in the error.
func CheckID(field string, id ID) error { return checkID(field, id) }
