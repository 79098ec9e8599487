//! Percentiles of timed samples, shared by the benchmarks.

/// The `p` quantile (0..=1) of `samples`, which it sorts: the sample at
/// that rank, no interpolation.
pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)]
}

/// The same of a copy, 0 when there are no samples.
pub fn quantile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    percentile(&mut samples.to_vec(), p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_at_the_rank_with_none_beyond_the_last() {
        let samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(quantile(&samples, 0.5), 51.0);
        assert_eq!(quantile(&samples, 0.99), 100.0);
        assert_eq!(quantile(&samples, 1.0), 100.0);
        assert_eq!(quantile(&[], 0.99), 0.0);
    }
}
