// Command origin is the benchmark's upstream and its "bare Go net/http"
// baseline: it answers every path with the same JSON page of a given size.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strconv"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:18081", "listen address")
	size := flag.Int("size", 4096, "answer size in bytes")
	flag.Parse()
	body := page(*size)
	length := []string{strconv.Itoa(len(body))}
	ctype := []string{"application/json; charset=utf-8"}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = ctype
		h["Content-Length"] = length
		w.Write(body)
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// page builds a Data-API-like blocks page of about size bytes.
func page(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"blocks":[`)
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"chainId":"43114","blockNumber":"%d","blockTimestamp":%d,"blockHash":"0x%064x","txCount":%d}`,
			50000000+i, 1763870000+2*i, i*7919, i%13)
	}
	b.WriteString(`],"nextPageToken":"0d4c6a7e-1f7d-4d0b-9f3e-8a1c2b3d4e5f"}`)
	return b.Bytes()
}
