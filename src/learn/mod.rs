//! Small learned classifiers on a text's embedding and its hashed words
//! (`features.rs`): one linear layer, its outputs a softmax over classes
//! (what the text is) followed by independent flags (what else it shows),
//! fitted by logistic regression (`train.rs`). The chat listener
//! (`listen::learned`), the memories' subjects (`memory::subject`) and
//! their concepts (`memory::concept_reader`) are three such classifiers, each trained from a labelled corpus in `corpus/`
//! and kept beside the embedding model under a key of that model, the
//! corpus and the trainer, so a server loads them in milliseconds and
//! trains them anew (seconds) when any of those changed.

mod corpus;
mod features;
mod train;
mod translate;

use std::path::Path;

use crate::embed::pinned;
use crate::embed::{EmbedError, Embedder};

pub use corpus::read_lines;
use features::{SLOTS, ngrams};
pub use train::train;
pub use translate::{PairSums, Translation};

#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error("{at}: {reason}")]
    Corpus { at: String, reason: String },
    #[error("embedding the corpus: {0}")]
    Embed(#[from] EmbedError),
    #[error("training stopped: {0}")]
    Training(String),
}

/// A classifier's outputs: `classes` in one softmax, then `flags` each on
/// its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heads {
    pub classes: usize,
    pub flags: usize,
}

impl Heads {
    fn outputs(self) -> usize {
        self.classes + self.flags
    }
}

/// One labelled text: its class and its flags (`Heads::flags` of them).
#[derive(Debug, Clone)]
pub struct Labelled {
    pub text: String,
    pub class: usize,
    pub flags: Vec<bool>,
}

/// The weights: one row per output, each the embedding's weights, then
/// the hashed words' weights, then a bias.
#[derive(Debug, Clone, PartialEq)]
pub struct Linear {
    rows: Vec<Vec<f32>>,
    dim: usize,
    heads: Heads,
    /// The key it was trained under (model, corpus, trainer): what it is.
    key: [u8; 32],
}

/// What a classifier reads in one text.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// Each class's probability (they sum to 1).
    pub classes: Vec<f32>,
    /// Each flag's probability.
    pub flags: Vec<f32>,
}

impl Outputs {
    /// The likeliest class and its probability.
    pub fn best(&self) -> (usize, f32) {
        self.classes
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, 0.0))
    }
}

impl Linear {
    fn zeroed(dim: usize, heads: Heads) -> Linear {
        Linear {
            rows: vec![vec![0.0; dim + SLOTS + 1]; heads.outputs()],
            dim,
            heads,
            key: [0; 32],
        }
    }

    /// What the weights are, in a few hex digits: equal only for the same
    /// embedding model, corpus and trainer.
    pub fn version(&self) -> String {
        self.key[..6].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads a text from its words and its embedding.
    pub fn read(&self, text: &str, vector: &[f32]) -> Outputs {
        let logits = self.logits(vector, &ngrams(text));
        let (classes, flags) = logits.split_at(self.heads.classes);
        Outputs {
            classes: softmax(classes),
            flags: flags.iter().map(|z| sigmoid(*z)).collect(),
        }
    }

    fn logits(&self, dense: &[f32], sparse: &[(usize, f32)]) -> Vec<f32> {
        self.rows
            .iter()
            .map(|row| {
                let embedded: f32 = row[..self.dim].iter().zip(dense).map(|(w, x)| w * x).sum();
                let worded: f32 = sparse.iter().map(|(slot, x)| row[self.dim + slot] * x).sum();
                embedded + worded + row[self.dim + SLOTS]
            })
            .collect()
    }
}

/// What a classifier is: its name (for messages), the file it is kept in,
/// a version bumped whenever its labels change meaning, and its heads.
pub struct Classifier<'a> {
    pub name: &'a str,
    pub cache: &'a Path,
    pub version: &'a str,
    pub heads: Heads,
}

/// The saved weights if they fit this embedding model and corpus, else
/// trained now (the corpus embedded in small requests, between which live
/// queries take their turn, then fitted off the reactor) and saved.
/// Returns whether it trained.
pub async fn load_or_train(
    embedder: &Embedder,
    classifier: &Classifier<'_>,
    corpus: Vec<Labelled>,
) -> Result<(Linear, bool), LearnError> {
    let heads = classifier.heads;
    if corpus.is_empty() {
        return Err(LearnError::Corpus {
            at: classifier.name.to_string(),
            reason: "no labelled texts to learn from".to_string(),
        });
    }
    let key = key(&embedder.model_digest().await?, classifier, &corpus);
    if let Some(rows) = pinned::load(classifier.cache, &key, heads.outputs()) {
        let dim = rows[0].len().saturating_sub(SLOTS + 1);
        if dim > 0 {
            return Ok((Linear { rows, dim, heads, key }, false));
        }
    }
    let mut vectors = Vec::with_capacity(corpus.len());
    for batch in corpus.chunks(32) {
        vectors.extend(embedder.embed(batch.iter().map(|l| l.text.clone()).collect()).await?);
    }
    let mut model = tokio::task::spawn_blocking(move || train(&corpus, &vectors, heads))
        .await
        .map_err(|e| LearnError::Training(e.to_string()))?;
    model.key = key;
    if let Err(e) = pinned::save(classifier.cache, &key, &model.rows) {
        tracing::warn!(
            "cannot save the {} weights to {}: {e}",
            classifier.name,
            classifier.cache.display()
        );
    }
    Ok((model, true))
}

/// A classifier over numbers of its own (not a text's embedding): the
/// saved weights if they carry `key` (what made them: the corpus, the
/// features, the models those read), else fitted now on what `examples`
/// gives (one row of features for each labelled example) and saved.
/// Returns whether it fitted.
pub async fn load_or_fit<F>(
    name: &str,
    cache: &Path,
    key: [u8; 32],
    heads: Heads,
    examples: F,
) -> Result<(Linear, bool), LearnError>
where
    F: std::future::Future<Output = Result<(Vec<Labelled>, Vec<Vec<f32>>), LearnError>>,
{
    if let Some(rows) = pinned::load(cache, &key, heads.outputs()) {
        let dim = rows[0].len().saturating_sub(SLOTS + 1);
        if dim > 0 {
            return Ok((Linear { rows, dim, heads, key }, false));
        }
    }
    let (corpus, rows) = examples.await?;
    if corpus.is_empty() {
        return Err(LearnError::Corpus {
            at: name.to_string(),
            reason: "no labelled examples to learn from".to_string(),
        });
    }
    let mut model = tokio::task::spawn_blocking(move || train(&corpus, &rows, heads))
        .await
        .map_err(|e| LearnError::Training(e.to_string()))?;
    model.key = key;
    if let Err(e) = pinned::save(cache, &key, &model.rows) {
        tracing::warn!("cannot save the {name} weights to {}: {e}", cache.display());
    }
    Ok((model, true))
}

/// The key for weights fitted by this trainer on what `texts` describe.
pub fn key_of(model_digest: &[u8; 32], texts: Vec<String>) -> [u8; 32] {
    let mut all = vec![train::VERSION.to_string()];
    all.extend(texts);
    pinned::key(model_digest, &all)
}

/// The key the saved weights must carry: this model, this corpus, this trainer.
fn key(model_digest: &[u8; 32], classifier: &Classifier<'_>, corpus: &[Labelled]) -> [u8; 32] {
    let mut texts = vec![format!(
        "{} {} {}/{}",
        train::VERSION,
        classifier.version,
        classifier.heads.classes,
        classifier.heads.flags
    )];
    texts.extend(corpus.iter().map(|l| {
        let flags: String = l.flags.iter().map(|f| if *f { '1' } else { '0' }).collect();
        format!("{}\t{}\t{flags}", l.text, l.class)
    }));
    pinned::key(model_digest, &texts)
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|z| (z - top).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}
