//! A learned carrying of one kind of text's embedding toward another's:
//! a chat line's vector toward the vectors of the memories it brings to
//! mind ("hard-hat hair at the terminal site" toward "designs buildings
//! for the port"). A linear map fitted by ridge regression toward the
//! identity on labelled pairs (a line, the mean of its memories'
//! vectors): with few pairs it stays the identity, and it moves only as
//! far as the pairs agree. Closed form (Cholesky), so the same pairs
//! always give the same map.

/// The map: `dim` x `dim`, row-major; a vector `q` goes to `q W`.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    dim: usize,
    w: Vec<f32>,
}

impl Translation {
    /// The map that leaves every vector as it is.
    pub fn identity(dim: usize) -> Translation {
        let mut w = vec![0.0; dim * dim];
        (0..dim).for_each(|i| w[i * dim + i] = 1.0);
        Translation { dim, w }
    }

    /// The map minimising |X W - Y|^2 + lambda |W - I|^2 over the pairs
    /// summed in `sums`; the identity when there are none.
    pub fn fit(sums: &PairSums, lambda: f64) -> Translation {
        let dim = sums.dim;
        let mut a = sums.xx.clone();
        let mut b = sums.xy.clone();
        for i in 0..dim {
            a[i * dim + i] += lambda;
            b[i * dim + i] += lambda;
        }
        let l = cholesky(&a, dim);
        let mut w = vec![0.0f32; dim * dim];
        for col in 0..dim {
            let rhs: Vec<f64> = (0..dim).map(|i| b[i * dim + col]).collect();
            let solved = solve(&l, dim, &rhs);
            (0..dim).for_each(|i| w[i * dim + col] = solved[i] as f32);
        }
        Translation { dim, w }
    }

    /// `q` carried by the map, of unit length.
    pub fn apply(&self, q: &[f32]) -> Vec<f32> {
        let mut t = vec![0.0f32; self.dim];
        for (i, qi) in q.iter().enumerate().take(self.dim) {
            let row = &self.w[i * self.dim..(i + 1) * self.dim];
            t.iter_mut().zip(row).for_each(|(s, wij)| *s += qi * wij);
        }
        let norm = t.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::EPSILON);
        t.iter_mut().for_each(|x| *x /= norm);
        t
    }

    /// The map's rows, to be saved.
    pub fn rows(&self) -> Vec<Vec<f32>> {
        self.w.chunks(self.dim.max(1)).map(<[f32]>::to_vec).collect()
    }

    /// The map from saved rows, if they are square.
    pub fn from_rows(rows: Vec<Vec<f32>>) -> Option<Translation> {
        let dim = rows.len();
        rows.iter().all(|r| r.len() == dim).then(|| Translation {
            dim,
            w: rows.into_iter().flatten().collect(),
        })
    }
}

/// What a fit needs of its pairs (x, y): X'X and X'Y, which add up, so
/// each corpus file is summed once and any set of files fitted from them.
#[derive(Debug, Clone)]
pub struct PairSums {
    dim: usize,
    xx: Vec<f64>,
    xy: Vec<f64>,
}

impl PairSums {
    pub fn new(dim: usize) -> PairSums {
        PairSums {
            dim,
            xx: vec![0.0; dim * dim],
            xy: vec![0.0; dim * dim],
        }
    }

    /// One pair: a vector and the one it should be carried toward.
    pub fn add(&mut self, x: &[f32], y: &[f32]) {
        let dim = self.dim;
        for (i, xi) in x.iter().enumerate().take(dim) {
            let xi = f64::from(*xi);
            let row = &mut self.xx[i * dim..(i + 1) * dim];
            row.iter_mut().zip(x).for_each(|(s, xj)| *s += xi * f64::from(*xj));
            let row = &mut self.xy[i * dim..(i + 1) * dim];
            row.iter_mut().zip(y).for_each(|(s, yj)| *s += xi * f64::from(*yj));
        }
    }

    /// These sums and `other`'s together.
    pub fn merge(&mut self, other: &PairSums) {
        self.xx.iter_mut().zip(&other.xx).for_each(|(a, b)| *a += b);
        self.xy.iter_mut().zip(&other.xy).for_each(|(a, b)| *a += b);
    }
}

/// L with A = L L' (A symmetric positive definite, as X'X + lambda I is).
fn cholesky(a: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0f64; n * n];
    for i in 0..n {
        for j in 0..=i {
            let dot: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = match i == j {
                true => (a[i * n + i] - dot).max(f64::EPSILON).sqrt(),
                false => (a[i * n + j] - dot) / l[j * n + j],
            };
        }
    }
    l
}

/// x with L L' x = b.
fn solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0f64; n];
    for i in 0..n {
        let dot: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
        y[i] = (b[i] - dot) / l[i * n + i];
    }
    let mut x = vec![0.0f64; n];
    for i in (0..n).rev() {
        let dot: f64 = (i + 1..n).map(|k| l[k * n + i] * x[k]).sum();
        x[i] = (y[i] - dot) / l[i * n + i];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn it_learns_to_carry_one_direction_to_another_and_stays_put_without_pairs() {
        // Lines along axis 0 bring memories along axis 1 to mind.
        let lines: Vec<Vec<f32>> = (0..20).map(|n| vec![1.0, 0.0, (n % 3) as f32 * 0.1]).collect();
        let memories: Vec<Vec<f32>> = (0..20).map(|_| vec![0.0, 1.0, 0.0]).collect();
        let mut pairs = PairSums::new(3);
        lines.iter().zip(&memories).for_each(|(x, y)| pairs.add(x, y));
        let map = Translation::fit(&pairs, 1.0);
        let carried = map.apply(&[1.0, 0.0, 0.0]);
        assert!(cos(&carried, &[0.0, 1.0, 0.0]) > 0.9, "{carried:?}");
        assert_eq!(map, Translation::fit(&pairs, 1.0), "same pairs, same map");
        // Strongly held to the identity, it barely moves.
        let held = Translation::fit(&pairs, 1e6).apply(&[1.0, 0.0, 0.0]);
        assert!(cos(&held, &[1.0, 0.0, 0.0]) > 0.99, "{held:?}");
        // Sums of halves merged fit the same map as the whole.
        let (mut first, mut second) = (PairSums::new(3), PairSums::new(3));
        lines.iter().zip(&memories).take(7).for_each(|(x, y)| first.add(x, y));
        lines.iter().zip(&memories).skip(7).for_each(|(x, y)| second.add(x, y));
        first.merge(&second);
        let merged = Translation::fit(&first, 1.0).apply(&[1.0, 0.0, 0.0]);
        assert!(cos(&merged, &carried) > 0.9999, "{merged:?}");
        let back = Translation::from_rows(map.rows()).expect("square");
        assert_eq!(back, map);
    }
}
