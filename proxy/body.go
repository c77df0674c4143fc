package proxy

import (
	"bytes"
	"io"
)

type ioReadCloser = io.ReadCloser

func readCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
