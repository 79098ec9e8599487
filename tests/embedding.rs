//! The embedder agrees with an independent reference: the same ONNX model run
//! by Python onnxruntime + tokenizers, mean-pooled and L2-normalised.

mod common;

use kibitz::embed::{self, Embedder, QueryLimits};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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
    // Reference values from onnxruntime 1.31.1 in Python on the same files,
    // each text alone, for the float model the int8 one was derived from
    // (the wheel's model.onnx): exact on any CPU. The int8 arithmetic itself
    // differs between CPUs (VNNI or AVX2 kernels: Python's a,c was -0.0307 on
    // one and -0.0132 on an AVX2-only EPYC), so the int8 model is held to
    // the float one within what quantization moves, not to one CPU's figures.
    let (ab, ac, bc) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]), cosine(&v[1], &v[2]));
    for (got, float, pair) in [(ab, 0.8259, "a, b"), (ac, -0.0322, "a, c"), (bc, -0.0841, "b, c")] {
        assert!((got - float).abs() < 0.025, "sim({pair}) = {got}, float model {float}");
    }
    assert!(
        ab > 0.75 && ac.abs() < 0.1 && bc.abs() < 0.15,
        "related texts are near, unrelated ones far"
    );
    // Batching must not change a sentence's embedding.
    let alone = embedder.embed_one(texts[1]).await.unwrap();
    assert!(cosine(&alone, &v[1]) > 0.999);

    // The memo spares the model what it has embedded: of three texts, one
    // new, only that one runs, and each vector is the one a run gives.
    let before = embedder.stats().texts_embedded;
    let fresh = "A text the memo has never seen, about the Caro-Kann.";
    let memoized = embedder
        .embed_memoized(vec![texts[1].to_string(), fresh.to_string(), texts[1].to_string()])
        .await
        .unwrap();
    assert_eq!(embedder.stats().texts_embedded - before, 1, "only the new text runs");
    let fresh_alone = embedder.embed(vec![fresh.to_string()]).await.unwrap().remove(0);
    assert!(cosine(&memoized[0], &alone) > 0.999 && cosine(&memoized[2], &alone) > 0.999);
    assert!(cosine(&memoized[1], &fresh_alone) > 0.999);
    let again = embedder.stats().texts_embedded;
    embedder.embed_memoized(vec![fresh.to_string()]).await.unwrap();
    assert_eq!(embedder.stats().texts_embedded, again, "the memo keeps what it ran");

    // The model's threads (its own and ONNX Runtime's, which it started)
    // yield to the rest of the service.
    let nice = model_thread_niceness();
    assert!(!nice.is_empty() && nice.iter().all(|&n| n == 10), "{nice:?}");

    // Callers at once each get their own texts' vectors, in their own
    // order. Every text runs alone (the model quantizes its activations per
    // run), so its vector is the very one it gets alone, whatever else
    // waited beside it.
    let lines: Vec<Vec<String>> = (0..24)
        .map(|i| match i % 3 {
            0 => vec![format!("Game {i}: she lost a rook to a fork.")],
            1 => vec![texts[i % 3].to_string(), format!("Note {i} about blitz openings.")],
            _ => vec![format!("{i} {}", "and the cat sat on the board ".repeat(i % 5 + 1))],
        })
        .collect();
    let runs_before = embedder.stats().model_runs;
    let at_once = lines.iter().map(|l| {
        let embedder = embedder.clone();
        let l = l.clone();
        tokio::spawn(async move { embedder.embed(l).await.unwrap() })
    });
    let at_once: Vec<Vec<Vec<f32>>> = futures_util::future::join_all(at_once)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let runs = embedder.stats().model_runs - runs_before;
    let texts_sent = lines.iter().map(Vec::len).sum::<usize>();
    assert_eq!(runs, texts_sent as u64, "one run per text");
    for (l, got) in lines.iter().zip(&at_once) {
        assert_eq!(got.len(), l.len());
        for (text, vector) in l.iter().zip(got) {
            let alone = embedder.embed(vec![text.clone()]).await.unwrap().remove(0);
            assert_eq!(&alone, vector, "{text}");
        }
    }

    // The backlog counts texts not yet run: 32 long texts (256 tokens) run
    // one by one, and three more wait behind them.
    let long = "the quick brown fox jumps over the lazy dog ".repeat(40);
    let blocker = tokio::spawn({
        let embedder = embedder.clone();
        let texts = (0..32).map(|i| format!("{i} {long}")).collect();
        async move { embedder.embed(texts).await.unwrap() }
    });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let behind = tokio::spawn({
        let embedder = embedder.clone();
        let texts = (0..3).map(|i| format!("waiting text {i}")).collect();
        async move { embedder.embed(texts).await.unwrap() }
    });
    let mut seen = 0;
    for _ in 0..100 {
        seen = seen.max(embedder.backlog());
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    assert!(
        seen > 3 && seen < 35,
        "three texts wait behind what is left of the long ones: {seen}"
    );
    blocker.await.unwrap();
    behind.await.unwrap();
    assert_eq!(embedder.backlog(), 0, "every text taken into a run");

    // Overload shedding: a new text waits for no model behind a backlog at
    // or over the limit, nor runs one that has lately taken more than its
    // share of a core; a remembered text is free whatever the load.
    let limits = |max_backlog, max_share| QueryLimits { max_backlog, max_share };
    let shed_before = embedder.stats().queries_shed;
    let new_line = "A brand new line";
    assert_eq!(embedder.affordable(new_line, "fallback", limits(1, 1.1)), new_line);
    assert_eq!(embedder.affordable(new_line, "fallback", limits(0, 1.1)), "fallback");
    let share = embedder.stats().busy_share;
    assert!(
        share > 0.0 && share <= 1.0,
        "the runs above took a share of a core: {share}"
    );
    assert_eq!(
        embedder.affordable(new_line, "fallback", limits(1, share / 2.0)),
        "fallback"
    );
    assert_eq!(
        embedder.affordable(texts[1], "fallback", limits(0, 0.0)),
        texts[1],
        "in the memo"
    );
    assert_eq!(embedder.stats().queries_shed, shed_before + 2);
}

/// The niceness of each of this process's threads named "embedder".
fn model_thread_niceness() -> Vec<i64> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() != "embedder" {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap();
        // Fields after the parenthesised name; niceness is the 19th field of stat.
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        found.push(after_name.split(' ').nth(16).unwrap().parse().unwrap());
    }
    found
}
