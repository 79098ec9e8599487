//! The listener's learned part: what a chat line is for (its main intent,
//! every intent it shows) and whether it tells something worth keeping, a
//! `learn::Linear` trained on the labelled lines in `corpus/listen/`
//! (`corpus.rs`) and kept beside the embedding model.

mod corpus;

use std::path::{Path, PathBuf};

use crate::embed::Embedder;
use crate::learn::{self, Classifier, Heads, LearnError, Linear};
use crate::listen::Intent;

pub use corpus::corpus;

/// Intents, then: each intent present, and remember.
const INTENTS: usize = Intent::ALL.len();
const HEADS: Heads = Heads {
    classes: INTENTS,
    flags: INTENTS + 1,
};

/// The trained listener.
#[derive(Debug, Clone, PartialEq)]
pub struct Learned(Linear);

/// What the model reads in one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The main intent and its probability.
    pub main: (Intent, f32),
    /// Each intent's probability of being in the line, in `Intent::ALL` order.
    pub present: [f32; INTENTS],
    /// The probability that the line tells a lasting fact about the player.
    pub remember: f32,
}

impl Learned {
    /// What the weights are (`Linear::version`).
    pub fn version(&self) -> String {
        self.0.version()
    }

    /// Reads a line from its text and its embedding.
    pub fn read(&self, text: &str, vector: &[f32]) -> Reading {
        let out = self.0.read(text, vector);
        let (best, p) = out.best();
        let mut present = [0.0; INTENTS];
        present.copy_from_slice(&out.flags[..INTENTS]);
        Reading {
            main: (Intent::ALL[best], p),
            present,
            remember: out.flags[INTENTS],
        }
    }
}

/// Where the trained weights are kept: beside the model they were trained on.
pub fn cache_path(models_dir: &Path) -> PathBuf {
    models_dir.join("listen.model")
}

/// The saved weights if they fit this model and corpus, else trained now
/// and saved. Returns whether it trained.
pub async fn load_or_train(embedder: &Embedder, cache: &Path) -> Result<(Learned, bool), LearnError> {
    let classifier = Classifier {
        name: "chat listener",
        cache,
        version: "listen-1",
        heads: HEADS,
    };
    let (model, trained) = learn::load_or_train(embedder, &classifier, corpus()?).await?;
    Ok((Learned(model), trained))
}
