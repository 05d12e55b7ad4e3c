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
