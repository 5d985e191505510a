package intake

// WALKeep is the WAL size the intake's checkpointer leaves alone.
const WALKeep = walKeep

// BatchResult is what one delivery of a group commit got.
type BatchResult struct {
	Stored bool
	Err    error
}

// CommitBatch commits ds as one batch of in's group commit, as its flusher
// does, and returns what each delivery got.
func CommitBatch(in *Intake, ds []*Delivery) []BatchResult {
	batch := make([]*storeReq, len(ds))
	for i, d := range ds {
		batch[i] = &storeReq{e: d, done: make(chan storeRes, 1)}
	}
	in.batcher.commit(batch, make([]storeRes, len(batch)))
	out := make([]BatchResult, len(batch))
	for i, r := range batch {
		res := <-r.done
		out[i] = BatchResult{Stored: res.stored, Err: res.err}
	}
	return out
}
