package main

import "syscall"

// childAttr makes a child process die with the harness (Linux: the parent
// death signal), so that an interrupted run leaves no server behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
