package board

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cairn-dev/cairn/core/workspace"
)

// FileStamp identifies one version of a file cheaply: size, modification time and file identity
// (device and inode where the platform has them, so a replaced file with the same size and time
// still counts as changed).
type FileStamp struct {
	Exists  bool
	Size    int64
	ModNano int64
	Dev     uint64
	Ino     uint64
}

// Stamp is what a prepared board was built from; equal stamps mean the snapshot is current.
type Stamp struct {
	Revision int64
	DB       FileStamp
	// WAL is board.db-wal: a writer in WAL mode commits there without touching board.db.
	WAL       FileStamp
	Summaries FileStamp
	Memory    FileStamp
}

func statFile(path string) (FileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return FileStamp{}, nil
	}
	if err != nil {
		return FileStamp{}, fmt.Errorf("stat %s: %w", path, err)
	}
	dev, ino := fileIdentity(fi)
	return FileStamp{Exists: true, Size: fi.Size(), ModNano: fi.ModTime().UnixNano(), Dev: dev, Ino: ino}, nil
}

// fileStamps stats the board files; the revision is filled in by the caller.
func fileStamps(ws *workspace.Workspace) (Stamp, error) {
	var s Stamp
	var err error
	if s.DB, err = statFile(ws.Path(DBPath)); err != nil {
		return s, err
	}
	if s.WAL, err = statFile(ws.Path(DBPath) + "-wal"); err != nil {
		return s, err
	}
	if s.Summaries, err = statFile(ws.Path(SummariesPath)); err != nil {
		return s, err
	}
	if s.Memory, err = statFile(ws.Path(MemoryPath)); err != nil {
		return s, err
	}
	return s, nil
}
