// Package checkpoints implements the on-disk run directory: atomic, versioned,
// checksummed checkpoints and the journal of finished games.
package checkpoints
