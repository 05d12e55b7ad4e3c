// Package board stores a kanban board of agent work (board/board.db, board/summaries.json,
// board/memory.json) and searches it: import, loading into prepared documents,
// a derived snapshot under .cairn/ so a fresh process answers fast, and the two search views
// (search.query for people, flowly_search for agents).
package board
