package commits

// SetMaxText lowers the size limit of diff and patch answers; it returns a
// function that restores it.
func SetMaxText(n int) func() {
	old := maxText
	maxText = n
	return func() { maxText = old }
}
