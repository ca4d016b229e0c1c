//! Welch's t-test between two classes of timings, as dudect applies it
//! (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant time?", 2017):
//! the t statistic of all measurements, and of the measurements below each of
//! a few percentiles of the pooled distribution ("cropping": interrupts and
//! migrations put a long tail on timings that hides small differences).

/// Running count, mean and sum of squared deviations (Welford's update).
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    pub fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    pub fn count(&self) -> u64 {
        self.n as u64
    }

    pub fn mean(&self) -> f64 {
        self.mean
    }

    fn variance(&self) -> f64 {
        if self.n < 2.0 { 0.0 } else { self.m2 / (self.n - 1.0) }
    }
}

/// Welch's t of two classes (0 if either has fewer than two measurements or
/// both have no spread).
pub fn t(a: &Moments, b: &Moments) -> f64 {
    let se = (a.variance() / a.n.max(1.0) + b.variance() / b.n.max(1.0)).sqrt();
    if a.n < 2.0 || b.n < 2.0 || se == 0.0 { 0.0 } else { (a.mean - b.mean) / se }
}

/// Pooled percentiles at which measurements are cropped; `None` is the
/// uncropped test.
pub const CROPS: [Option<f64>; 7] = [None, Some(0.999), Some(0.99), Some(0.95), Some(0.90), Some(0.75), Some(0.50)];

/// One crop's result.
#[derive(Clone, Copy, Debug)]
pub struct Crop {
    pub percentile: Option<f64>,
    pub t: f64,
    pub a: Moments,
    pub b: Moments,
}

/// The t statistic at every crop of `samples` (class, ticks).
pub fn crops(samples: &[(bool, u32)]) -> Vec<Crop> {
    let mut pooled: Vec<u32> = samples.iter().map(|&(_, x)| x).collect();
    pooled.sort_unstable();
    CROPS
        .iter()
        .map(|&percentile| {
            let limit = match percentile {
                None => u32::MAX,
                Some(p) => pooled[((pooled.len() - 1) as f64 * p) as usize],
            };
            let (mut a, mut b) = (Moments::default(), Moments::default());
            for &(class, x) in samples.iter().filter(|&&(_, x)| x <= limit) {
                if class { b.push(f64::from(x)) } else { a.push(f64::from(x)) }
            }
            Crop { percentile, t: t(&a, &b), a, b }
        })
        .collect()
}

/// The crop with the largest |t|.
pub fn worst(crops: &[Crop]) -> Crop {
    *crops.iter().max_by(|x, y| x.t.abs().total_cmp(&y.t.abs())).expect("at least one crop")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_match_the_two_pass_formulas() {
        let xs = [3.0, 7.0, 7.0, 19.0, 24.0];
        let mut m = Moments::default();
        xs.iter().for_each(|&x| m.push(x));
        let mean = xs.iter().sum::<f64>() / 5.0;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 4.0;
        assert!((m.mean() - mean).abs() < 1e-12 && (m.variance() - var).abs() < 1e-9);
    }

    #[test]
    fn t_separates_shifted_classes_and_not_equal_ones() {
        // Class b is class a plus 1 tick: large |t| with enough samples;
        // identical classes: t = 0.
        let a: Vec<(bool, u32)> = (0..10_000u32).map(|i| (false, 100 + i % 7)).collect();
        let shifted: Vec<(bool, u32)> = (0..10_000u32).map(|i| (true, 101 + i % 7)).collect();
        let same: Vec<(bool, u32)> = (0..10_000u32).map(|i| (true, 100 + i % 7)).collect();
        let far = worst(&crops(&[a.clone(), shifted].concat()));
        assert!(far.t < -20.0, "{far:?}");
        let near = worst(&crops(&[a, same].concat()));
        assert_eq!(near.t, 0.0, "{near:?}");
    }
}
