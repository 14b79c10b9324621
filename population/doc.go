// Package population implements derivative-free optimizers with an ask/tell
// interface and fully serializable state.
package population
