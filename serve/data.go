package serve

// writeData writes the partitions' segment files when the world changed
// since the last time (see Config.DataDir).
func (s *Server) writeData() {}
