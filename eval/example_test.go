package eval_test

import (
	"fmt"
	"log"

	"github.com/evotune/evotune/engine"
	"github.com/evotune/evotune/eval"
)

func Example() {
	set, err := eval.Set("standard")
	if err != nil {
		log.Fatal(err)
	}
	c, err := set.Compile(set.Defaults)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := engine.ParseBoard("2 2 0 0/0 0 0 0/0 0 0 0/4 0 2 4")
	f := set.FeatureVector(b, nil, nil) // nil: the default parameters (standard has none)
	for i, name := range set.FeatureNames() {
		fmt.Printf("%-12s %4g × %3g\n", name, f[i], set.Defaults[i])
	}
	fmt.Println("value", c.Evaluate(b))
	// Output:
	// monotonicity   -3 ×  47
	// smoothness     -1 ×  11
	// empty          11 × 270
	// corner          2 × 100
	// merge           1 ×  70
	// value 3088
}

func ExampleFeatureSet_Normalize() {
	set, _ := eval.Set("standard")
	// Twice the defaults: the same decisions when no move scores are added.
	w, _ := set.Normalize([]float64{94, 22, 540, 200, 140})
	fmt.Println(set.Reference, w)
	// Output: empty [47 11 270 100 70]
}

func ExampleParseWeights() {
	data := []byte(`format: evotune.weights/v1
features: standard
weights: {monotonicity: 47, smoothness: 11, empty: 270, corner: 100, merge: 70}
checks:
  - board: "0x2102000000000011"
    features: {monotonicity: -3, smoothness: -1, empty: 11, corner: 2, merge: 1}
    value: 3088
`)
	wf, err := eval.ParseWeights(data, "w.yaml")
	if err != nil {
		log.Fatal(err)
	}
	c, _ := wf.Compile()
	fmt.Println(wf.SetName, wf.Weights, len(wf.Checks), "check(s) verified;", c.Evaluate(0))

	_, err = eval.ParseWeights([]byte("format: evotune.weights/v1\nfeatures: standard\nweights: {empty: 1}\n"), "bad.yaml")
	fmt.Println(err)
	// Output:
	// standard [47 11 270 100 70] 1 check(s) verified; 4320
	// bad.yaml:3: weights: missing feature "monotonicity" (standard needs monotonicity, smoothness, empty, corner, merge)
}
