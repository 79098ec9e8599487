//! Fitting a classifier's weights: logistic regression on the text's
//! embedding and its hashed words, one example at a time with AdaGrad (a
//! step per weight that shrinks as its gradients add up), in an order
//! shuffled by a fixed seed, so the same corpus and vectors always give
//! the same model. Cheap enough for a debug build at setup: a few hundred
//! million multiply-adds for the chat corpus.

use super::features::{SLOTS, ngrams};
use super::{Heads, Labelled, Linear};

/// Bumped whenever the features or the fitting change, so an old file is
/// never read as a new model.
pub const VERSION: &str = "learn-1";

/// Passes over the corpus.
const EPOCHS: usize = 12;
/// AdaGrad's base step.
const RATE: f32 = 0.2;
/// The shuffle's seed.
const SEED: u64 = 51;

/// A text's hashed words and its wanted outputs.
type Example = (Vec<(usize, f32)>, Vec<f32>);

/// The weights that best tell the corpus's labels from its texts.
/// `vectors[i]` is the embedding of `corpus[i]`.
pub fn train(corpus: &[Labelled], vectors: &[Vec<f32>], heads: Heads) -> Linear {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut model = Linear::zeroed(dim, heads);
    let mut squares = Linear::zeroed(dim, heads);
    squares.rows.iter_mut().flatten().for_each(|g| *g = 1e-8);
    let examples: Vec<Example> = corpus.iter().map(|l| (ngrams(&l.text), targets(l, heads))).collect();
    let mut order: Vec<usize> = (0..corpus.len()).collect();
    let mut rng = SplitMix(SEED);
    for _ in 0..EPOCHS {
        shuffle(&mut order, &mut rng);
        for &n in &order {
            let (sparse, target) = &examples[n];
            let logits = model.logits(&vectors[n], sparse);
            let grads = gradients(&logits, target, heads);
            step(&mut model, &mut squares, (&vectors[n], sparse), &grads);
        }
    }
    model
}

/// The wanted outputs: the class one-hot, then each flag.
fn targets(l: &Labelled, heads: Heads) -> Vec<f32> {
    let mut t = vec![0.0; heads.outputs()];
    t[l.class] = 1.0;
    for (k, flag) in l.flags.iter().enumerate().take(heads.flags) {
        t[heads.classes + k] = f32::from(u8::from(*flag));
    }
    t
}

/// d(loss)/d(logit): softmax cross-entropy for the class, logistic loss for
/// each flag.
fn gradients(logits: &[f32], target: &[f32], heads: Heads) -> Vec<f32> {
    let classes = super::softmax(&logits[..heads.classes]);
    let flags = logits[heads.classes..].iter().map(|z| super::sigmoid(*z));
    classes
        .into_iter()
        .chain(flags)
        .zip(target)
        .map(|(p, t)| p - t)
        .collect()
}

/// One AdaGrad step on the weights this example touches.
fn step(model: &mut Linear, squares: &mut Linear, (dense, sparse): (&[f32], &[(usize, f32)]), grads: &[f32]) {
    let dim = model.dim;
    let mut update = |row: usize, at: usize, grad: f32| {
        let sq = &mut squares.rows[row][at];
        *sq += grad * grad;
        model.rows[row][at] -= RATE * grad / sq.sqrt();
    };
    for (row, &g) in grads.iter().enumerate() {
        if g == 0.0 {
            continue;
        }
        for (i, x) in dense.iter().enumerate() {
            update(row, i, g * x);
        }
        for &(slot, x) in sparse {
            update(row, dim + slot, g * x);
        }
        update(row, dim + SLOTS, g);
    }
}

/// A small fixed-seed generator: the shuffle must not depend on a crate's
/// version or the platform.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Fisher-Yates.
fn shuffle(order: &mut [usize], rng: &mut SplitMix) {
    for i in (1..order.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADS: Heads = Heads { classes: 3, flags: 2 };

    fn line(text: &str, class: usize, flags: [bool; 2]) -> Labelled {
        Labelled {
            text: text.into(),
            class,
            flags: flags.to_vec(),
        }
    }

    /// Vectors that point one way per class, as the embedding roughly does.
    fn vector(axis: usize, wobble: f32) -> Vec<f32> {
        let mut v = vec![wobble; 8];
        v[axis] = 1.0;
        v
    }

    #[test]
    fn it_learns_classes_and_flags_and_gives_the_same_model_twice() {
        // Classes: a draw offer, a disclosure, a greeting; flags: also
        // discloses, worth remembering.
        let corpus = vec![
            line("draw?", 0, [false, false]),
            line("shall we split the point", 0, [false, false]),
            line("i teach piano", 1, [true, true]),
            line("i work nights at the bakery", 1, [true, true]),
            line("hi! i teach maths", 2, [true, true]),
            line("hello there", 2, [false, false]),
        ];
        let vectors: Vec<Vec<f32>> = [0, 0, 1, 1, 2, 2]
            .iter()
            .enumerate()
            .map(|(n, axis)| vector(*axis, n as f32 * 0.01))
            .collect();
        let model = train(&corpus, &vectors, HEADS);
        assert_eq!(model, train(&corpus, &vectors, HEADS), "same corpus, same weights");
        let draw = model.read("draw now?", &vector(0, 0.02));
        assert_eq!(draw.best().0, 0);
        assert!(draw.flags[1] < 0.5, "{draw:?}");
        let told = model.read("i teach the violin", &vector(1, 0.03));
        assert_eq!(told.best().0, 1);
        assert!(told.flags[1] > 0.5, "{told:?}");
        let mixed = model.read("hi! i teach chemistry", &vector(2, 0.0));
        assert_eq!(mixed.best().0, 2);
        assert!(mixed.flags[0] > 0.5, "{mixed:?}");
    }
}
