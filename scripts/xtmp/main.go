package main

import (
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	db, err := sql.Open("sqlite", "file:"+os.Args[1]+"?mode=ro")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range os.Args[2:] {
		for i := 0; i < 3; i++ {
			t := time.Now()
			var n int
			var s string
			if err := db.QueryRow(q).Scan(&n, &s); err != nil {
				fmt.Println(err)
				break
			}
			fmt.Printf("%8.2f ms  n=%d len=%d  %s\n", float64(time.Since(t).Microseconds())/1000, n, len(s), q)
		}
	}
}
