package stats

import (
	"math"
	"testing"
)

func TestMeanCI95(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	mean, hw := MeanCI95(xs)
	// sd = sqrt(110/12) = 3.0276503541, t(0.975, 9) = 2.2621571628 (tables).
	if mean != 5.5 || math.Abs(hw-2.2621571628*3.0276503541/math.Sqrt(10)) > 1e-8 {
		t.Errorf("MeanCI95(1..10) = %v ± %v", mean, hw)
	}
	// t(0.975, 1) = 12.7062047362: two values 0 and 2 have sd sqrt(2).
	if mean, hw := MeanCI95([]float64{0, 2}); mean != 1 || math.Abs(hw-12.7062047362*math.Sqrt(2)/math.Sqrt(2)) > 1e-8 {
		t.Errorf("MeanCI95(0, 2) = %v ± %v", mean, hw)
	}
	if mean, hw := MeanCI95([]float64{7}); mean != 7 || hw != 0 {
		t.Errorf("MeanCI95(7) = %v ± %v, want 7 ± 0", mean, hw)
	}
}

// TestPairedT checks the statistic against one computed by hand and its
// degenerate cases.
func TestPairedT(t *testing.T) {
	// differences 1, 2, 3: mean 2, sd 1, t = 2/(1/√3) = 2√3.
	if got := PairedT([]float64{2, 4, 6}, []float64{1, 2, 3}); math.Abs(got-2*math.Sqrt(3)) > 1e-12 {
		t.Errorf("PairedT = %v, want %v", got, 2*math.Sqrt(3))
	}
	if got := PairedT([]float64{2, 3}, []float64{1, 2}); !math.IsInf(got, 1) {
		t.Errorf("equal positive differences: %v, want +Inf", got)
	}
	if got := PairedT([]float64{2, 3}, []float64{2, 3}); got != 0 {
		t.Errorf("no differences: %v, want 0", got)
	}
	// The critical value for 8 games at 1%: Student's t with 7 degrees of
	// freedom, 2.998 (tables).
	if got := PairedTCritical(8, 0.01); math.Abs(got-2.998) > 1e-3 {
		t.Errorf("PairedTCritical(8, 0.01) = %v, want 2.998", got)
	}
}

// TestTQuantileTable checks the t quantiles behind every interval and the
// racing test against a published table: NIST/SEMATECH e-Handbook of
// Statistical Methods, section 1.3.6.7.2, "Critical values of the
// Student's t distribution" (upper-tail probabilities 0.025 and 0.01, three
// decimals).
func TestTQuantileTable(t *testing.T) {
	for _, tt := range []struct {
		df        int
		t975, t99 float64
	}{
		{1, 12.706, 31.821},
		{2, 4.303, 6.965},
		{5, 2.571, 3.365},
		{7, 2.365, 2.998},
		{10, 2.228, 2.764},
		{30, 2.042, 2.457},
		{100, 1.984, 2.364},
	} {
		if got := tQuantile(0.975, tt.df); math.Abs(got-tt.t975) > 5e-4 {
			t.Errorf("t(0.975, %d) = %.4f, table %.3f", tt.df, got, tt.t975)
		}
		// The racing critical value over n pairs has n-1 degrees of freedom.
		if got := PairedTCritical(tt.df+1, 0.01); math.Abs(got-tt.t99) > 5e-4 {
			t.Errorf("PairedTCritical(%d, 0.01) = %.4f, table t(0.99, %d) %.3f", tt.df+1, got, tt.df, tt.t99)
		}
	}
}

// TestPairedTStudentSleep checks the paired t statistic and the t interval
// on the textbook example of the paired t test: Student's (1908, "The
// probable error of a mean", Biometrika 6, 1-25) data of Cushny and Peebles,
// the extra hours of sleep ten patients gained with two drugs. R's
// t.test(extra ~ group, data = sleep, paired = TRUE) prints t = -4.0621,
// df = 9, mean difference -1.58 and the 95% interval -2.4598858
// -0.7001142.
func TestPairedTStudentSleep(t *testing.T) {
	drug1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	drug2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	if got := PairedT(drug1, drug2); math.Abs(got-(-4.0621)) > 5e-5 {
		t.Errorf("PairedT = %.5f, Student's data give -4.0621", got)
	}
	d := make([]float64, len(drug1))
	for i := range d {
		d[i] = drug1[i] - drug2[i]
	}
	mean, half := MeanCI95(d)
	if math.Abs(mean-(-1.58)) > 1e-12 || math.Abs(mean-half-(-2.4598858)) > 5e-8 || math.Abs(mean+half-(-0.7001142)) > 5e-8 {
		t.Errorf("MeanCI95 = %v ± %v = [%.7f, %.7f]; want -1.58 [-2.4598858, -0.7001142]", mean, half, mean-half, mean+half)
	}
}
