package cache

import "os/exec"

func lookRedis() (string, error) { return exec.LookPath("redis-server") }
