//go:build !linux

package main

import "syscall"

// childAttr is the default elsewhere: children outlive an interrupted run
// only if the harness dies without its cleanup.
func childAttr() *syscall.SysProcAttr { return nil }
