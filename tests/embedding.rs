//! The embedder agrees with an independent reference: the same ONNX model run
//! by Python onnxruntime + tokenizers, mean-pooled and L2-normalised.

mod common;

use kibitz::memory::embed::{self, Embedder};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[tokio::test]
async fn embeddings_match_the_reference_similarities() {
    let models = common::repo().join("models");
    // SAFETY: the only test in this binary, run before any thread reads the environment.
    unsafe { std::env::set_var("ORT_DYLIB_PATH", embed::ort_library(&models)) };
    let embedder = Embedder::load(&models).expect("models provisioned by `make models`");
    let texts = [
        "Patricia told me: \"I always play the Sicilian defence with black\"",
        "Quinn says: Do you know anyone who plays the Sicilian defence with black?",
        "The weather is lovely today.",
    ];
    let v = embedder
        .embed(texts.iter().map(|t| t.to_string()).collect())
        .await
        .unwrap();
    assert_eq!(v[0].len(), embed::DIMENSIONS);
    let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "L2-normalised, got {norm}");
    // Reference values from onnxruntime 1.31.1 in Python on the same files.
    let (ab, ac, bc) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]), cosine(&v[1], &v[2]));
    assert!((ab - 0.8259).abs() < 0.02, "sim(a, b) = {ab}, reference 0.8259");
    assert!((ac - -0.0322).abs() < 0.02, "sim(a, c) = {ac}, reference -0.0322");
    assert!((bc - -0.0841).abs() < 0.02, "sim(b, c) = {bc}, reference -0.0841");
    // Batching must not change a sentence's embedding.
    let alone = embedder.embed_one(texts[1]).await.unwrap();
    assert!(cosine(&alone, &v[1]) > 0.999);
}
