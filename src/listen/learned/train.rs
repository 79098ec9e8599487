//! Fitting the listener's weights: logistic regression on the line's
//! embedding and its hashed words, one example at a time with AdaGrad
//! (a step per weight that shrinks as its gradients add up), in an order
//! shuffled by a fixed seed, so the same corpus and vectors always give
//! the same model. Cheap enough for a debug build at setup: about a
//! billion multiply-adds.

use super::corpus::Labelled;
use super::features::{SLOTS, ngrams};
use super::{HEADS, Learned, MAIN, PRESENT, REMEMBER};
use crate::listen::Intent;

/// Passes over the corpus.
const EPOCHS: usize = 12;
/// AdaGrad's base step.
const RATE: f32 = 0.2;
/// The shuffle's seed.
const SEED: u64 = 51;

/// A line's hashed words and its wanted outputs.
type Example = (Vec<(usize, f32)>, [f32; HEADS]);

/// The weights that best tell the corpus's labels from its lines.
/// `vectors[i]` is the embedding of `lines[i]`.
pub fn train(lines: &[Labelled], vectors: &[Vec<f32>]) -> Learned {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut model = Learned::zeroed(dim);
    let mut squares = Learned::zeroed(dim);
    squares.rows.iter_mut().flatten().for_each(|g| *g = 1e-8);
    let examples: Vec<Example> = lines.iter().map(|l| (ngrams(&l.text), targets(l))).collect();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    let mut rng = SplitMix(SEED);
    for _ in 0..EPOCHS {
        shuffle(&mut order, &mut rng);
        for &n in &order {
            let (sparse, target) = &examples[n];
            let logits = model.logits(&vectors[n], sparse);
            let grads = gradients(&logits, target);
            step(&mut model, &mut squares, (&vectors[n], sparse), &grads);
        }
    }
    model
}

/// The wanted outputs: the main intent one-hot, each intent present, remember.
fn targets(line: &Labelled) -> [f32; HEADS] {
    let mut t = [0.0; HEADS];
    t[MAIN.start + index(line.intents[0])] = 1.0;
    for i in &line.intents {
        t[PRESENT.start + index(*i)] = 1.0;
    }
    t[REMEMBER] = f32::from(u8::from(line.remember));
    t
}

pub(super) fn index(intent: Intent) -> usize {
    Intent::ALL
        .iter()
        .position(|i| *i == intent)
        .expect("every intent is in ALL")
}

/// d(loss)/d(logit): softmax cross-entropy for the main intent, logistic
/// loss for each presence and for remember.
fn gradients(logits: &[f32; HEADS], target: &[f32; HEADS]) -> [f32; HEADS] {
    let mut g = [0.0; HEADS];
    let main = super::softmax(&logits[MAIN]);
    for (k, p) in main.iter().enumerate() {
        g[MAIN.start + k] = p - target[MAIN.start + k];
    }
    for k in PRESENT.start..=REMEMBER {
        g[k] = super::sigmoid(logits[k]) - target[k];
    }
    g
}

/// One AdaGrad step on the weights this example touches.
fn step(model: &mut Learned, squares: &mut Learned, (dense, sparse): (&[f32], &[(usize, f32)]), grads: &[f32; HEADS]) {
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

    fn line(text: &str, intents: &[Intent], remember: bool) -> Labelled {
        Labelled {
            text: text.into(),
            intents: intents.to_vec(),
            remember,
        }
    }

    /// Vectors that point one way per intent, as the embedding roughly does.
    fn vector(axis: usize, wobble: f32) -> Vec<f32> {
        let mut v = vec![wobble; 8];
        v[axis] = 1.0;
        v
    }

    #[test]
    fn it_learns_intents_and_remembering_and_gives_the_same_model_twice() {
        let lines = vec![
            line("draw?", &[Intent::DrawRequest], false),
            line("shall we split the point", &[Intent::DrawRequest], false),
            line("i teach piano", &[Intent::SelfDisclosure], true),
            line("i work nights at the bakery", &[Intent::SelfDisclosure], true),
            line("hi! i teach maths", &[Intent::Greeting, Intent::SelfDisclosure], true),
            line("hello there", &[Intent::Greeting], false),
        ];
        let vectors: Vec<Vec<f32>> = [0, 0, 1, 1, 2, 2]
            .iter()
            .enumerate()
            .map(|(n, axis)| vector(*axis, n as f32 * 0.01))
            .collect();
        let model = train(&lines, &vectors);
        assert_eq!(model, train(&lines, &vectors), "same corpus, same weights");
        let read = model.read("draw now?", &vector(0, 0.02));
        assert_eq!(read.main.0, Intent::DrawRequest);
        assert!(read.remember < 0.5, "{read:?}");
        let told = model.read("i teach the violin", &vector(1, 0.03));
        assert_eq!(told.main.0, Intent::SelfDisclosure);
        assert!(told.remember > 0.5, "{told:?}");
        let mixed = model.read("hi! i teach chemistry", &vector(2, 0.0));
        assert_eq!(mixed.main.0, Intent::Greeting);
        assert!(mixed.present[index(Intent::SelfDisclosure)] > 0.5, "{mixed:?}");
    }
}
