//! Contract tests for `VectorStore` on qdrant-edge: scores, filters, isolation,
//! persistence across reopen.

mod common;

use common::copy_dir;
use kibitz::ids::PlayerId;
use kibitz::memory::MemoryType;
use kibitz::memory::edge::EdgeStore;
use kibitz::memory::qdrant::QdrantStore;
use kibitz::memory::vector::{IndexedMemory, VectorStore};

#[path = "vector_store/contract.rs"]
mod contract;

use contract::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edge_store_keeps_the_contract_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let store = EdgeStore::open(dir.path()).unwrap();
    let kept = check_contract(&store).await;
    store.maintain().await.unwrap();
    let count = store.count().await.unwrap();
    drop(store);
    let reopened = EdgeStore::open(dir.path()).unwrap();
    assert_eq!(reopened.count().await.unwrap(), count);
    assert_eq!(
        ids(&reopened, &kept.query, filter("pip", Some(kept.player), true)).await,
        kept.expected
    );
}

/// Found under load: the health check's write probe and a memory save's
/// probe used the same file, so one could delete the other's and report a
/// writable index as read-only (the memory was then not saved).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_write_probes_never_fail_a_writable_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(EdgeStore::open(dir.path()).unwrap());
    let mut tasks = Vec::new();
    for t in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..100 {
                match (t + i) % 10 {
                    0 => {
                        store
                            .upsert(vec![point(
                                unit(t, i, 0.5),
                                Some(PlayerId::new()),
                                "pip",
                                MemoryType::PlayerBehavior,
                                None,
                                0,
                            )])
                            .await
                    }
                    _ => store.writable().await,
                }
                .unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(store.count().await.unwrap(), 80);
}

/// Writes are flushed in the background: a store that is never dropped
/// (as in a kill -9) still has them on disk after `FLUSH_EVERY`.
/// The maintenance job's optimisation runs beside searches: a search made
/// while it merges segments answers as it did before, and so does one after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_answer_while_the_index_optimises() {
    let dir = tempfile::tempdir().unwrap();
    let store = EdgeStore::open(dir.path()).unwrap();
    let p = PlayerId::new();
    let mine: Vec<IndexedMemory> = (0..5)
        .map(|i| point(unit(i, 10, 0.3), Some(p), "pip", MemoryType::Pattern, None, 10))
        .collect();
    store.upsert(mine).await.unwrap();
    // Others' memories, in many writes, so the optimiser has segments to merge.
    for batch in 0..20 {
        let others = (0..200)
            .map(|i| {
                point(
                    unit((batch + i) % 300, 301, 0.5),
                    Some(PlayerId::new()),
                    "pip",
                    MemoryType::Pattern,
                    None,
                    10,
                )
            })
            .collect();
        store.upsert(others).await.unwrap();
    }
    let query = unit(0, 10, 0.0);
    let expected = ids(&store, &query, filter("pip", Some(p), false)).await;
    assert_eq!(expected.len(), 5);

    let done = std::sync::atomic::AtomicBool::new(false);
    let optimise = async {
        store.maintain().await.unwrap();
        done.store(true, std::sync::atomic::Ordering::Release);
    };
    let search = async {
        let mut answered = 0;
        loop {
            assert_eq!(ids(&store, &query, filter("pip", Some(p), false)).await, expected);
            answered += 1;
            if done.load(std::sync::atomic::Ordering::Acquire) {
                return answered;
            }
            tokio::task::yield_now().await;
        }
    };
    let ((), answered) = tokio::join!(optimise, search);
    assert!(answered >= 1);
    assert_eq!(store.count().await.unwrap(), 4005);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_reach_the_disk_without_a_clean_close() {
    let dir = tempfile::tempdir().unwrap();
    let store = EdgeStore::open(dir.path()).unwrap();
    for i in 0..5 {
        let p = point(
            unit(i, i + 1, 0.3),
            Some(PlayerId::new()),
            "pip",
            MemoryType::PlayerBehavior,
            None,
            0,
        );
        store.upsert(vec![p]).await.unwrap();
    }
    tokio::time::sleep(kibitz::memory::edge::FLUSH_EVERY * 3).await;
    // The files as they are while the store still runs: what a crash leaves.
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir.path(), copy.path());
    let reopened = EdgeStore::open(copy.path()).unwrap();
    assert_eq!(reopened.count().await.unwrap(), 5);
    drop(store);
}

/// The Qdrant server backend, against a real server when QDRANT_URL names
/// one (no Qdrant server binary exists in the registries this project uses).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qdrant_server_keeps_the_contract() {
    let Some(url) = std::env::var("QDRANT_URL").ok().filter(|u| !u.is_empty()) else {
        eprintln!("skipped: set QDRANT_URL (e.g. http://localhost:6334) to run the contract against a Qdrant server");
        return;
    };
    let key = std::env::var("QDRANT_API_KEY").ok();
    let collection = format!("kibitz_test_{}", uuid::Uuid::new_v4().simple());
    let store = QdrantStore::connect(&url, key.as_deref(), &collection).await.unwrap();
    check_contract(&store).await;
    drop_collection(&url, key.as_deref(), &collection).await;
}

/// A contract test leaves nothing behind on the server.
async fn drop_collection(url: &str, key: Option<&str>, collection: &str) {
    let client = qdrant_client::Qdrant::from_url(url)
        .api_key(key.map(str::to_string))
        .skip_compatibility_check()
        .build()
        .unwrap();
    client.delete_collection(collection).await.unwrap();
}

/// A collection made before recall by words (no sparse vector, which a
/// collection cannot add) is made anew, empty, for the start-up check to
/// fill from SQL; and searched by words after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_qdrant_collection_without_words_is_made_anew() {
    use qdrant_client::Qdrant;
    use qdrant_client::qdrant::{
        CreateCollectionBuilder, Distance, PointStruct, UpsertPointsBuilder, VectorParamsBuilder,
    };
    let Some(url) = std::env::var("QDRANT_URL").ok().filter(|u| !u.is_empty()) else {
        eprintln!("skipped: set QDRANT_URL to run this against a Qdrant server");
        return;
    };
    let collection = format!("kibitz_test_{}", uuid::Uuid::new_v4().simple());
    let client = Qdrant::from_url(&url).skip_compatibility_check().build().unwrap();
    let dense = VectorParamsBuilder::new(384, Distance::Cosine);
    client
        .create_collection(CreateCollectionBuilder::new(&collection).vectors_config(dense))
        .await
        .unwrap();
    let old = PointStruct::new(
        uuid::Uuid::new_v4().to_string(),
        vec![0.05_f32; 384],
        serde_json::Map::new(),
    );
    client
        .upsert_points(UpsertPointsBuilder::new(&collection, vec![old]).wait(true))
        .await
        .unwrap();
    let store = QdrantStore::connect(&url, None, &collection).await.unwrap();
    assert_eq!(store.count().await.unwrap(), 0, "made anew");
    check_contract(&store).await;
    drop_collection(&url, None, &collection).await;
}

#[tokio::test]
async fn an_unreachable_qdrant_server_is_a_clear_error() {
    // Port 9 (discard) on loopback: nothing listens there.
    let err = QdrantStore::connect("http://127.0.0.1:9", None, "kibitz")
        .await
        .err()
        .expect("no server");
    assert!(err.to_string().contains("qdrant server"), "{err}");
}
