package pullstacks

// SetBeforeWrite lets tests change a stack between a request's read and
// its write.
func SetBeforeWrite(s *Service, fn func()) { s.beforeWrite = fn }
