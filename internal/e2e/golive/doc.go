// Package golive tests validation and going live end to end: the rules
// of the authority modelled on its samples, its code lists, dated rules,
// certificates and the go-live check, and the sandbox's clients and trust.
package golive
