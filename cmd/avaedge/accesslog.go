package main

import (
	"time"

	"github.com/avaedge/avaedge/internal/accesslog"
)

// accessLogFlush bounds writing the access log's queued lines at shutdown,
// after the listeners have drained.
const accessLogFlush = 5 * time.Second

// accessLogOptions are the access log's queue bounds (the defaults; tests
// change them).
var accessLogOptions accesslog.Options
