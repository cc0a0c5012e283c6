// Package godoccheck holds no code, only a test: go doc of every public
// package of the SDK module and of vespacontainer names no type, function
// or value of an internal package, so that what go doc and editors show a
// user is all there is to read (issue 30).
package godoccheck
