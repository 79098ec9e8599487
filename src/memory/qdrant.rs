//! `VectorStore` on a Qdrant server (gRPC, qdrant-client): the scale-out
//! alternative to the embedded shard. The collection and its payload indexes
//! are created on start; payloads and filters mean what they mean in
//! `edge/convert.rs`, so both pass the same contract tests.

use std::collections::HashMap;

use async_trait::async_trait;
use qdrant_client::qdrant::{
    Condition, CountPointsBuilder, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder, DeletePointsBuilder,
    Distance, FieldType, Filter, GetPointsBuilder, Modifier, NamedVectors, PointId, PointStruct, PointsIdsList, Range,
    ScoredPoint, ScrollPointsBuilder, SearchPointsBuilder, SetPayloadPointsBuilder, SparseVectorParamsBuilder,
    SparseVectorsConfigBuilder, UpsertPointsBuilder, VectorParamsBuilder, point_id::PointIdOptions,
    vector_output::Vector, vectors_output::VectorsOptions,
};
use qdrant_client::{Payload, Qdrant};
use serde_json::json;

use super::lexical::{Sparse, TEXT_VECTOR};
use super::vector::{FieldKind, Hit, INDEXED_FIELDS, IndexedMemory, SearchFilter, VectorError, VectorStore};
use crate::embed::DIMENSIONS;
use crate::ids::MemoryId;

pub struct QdrantStore {
    client: Qdrant,
    collection: String,
}

fn err(e: impl std::fmt::Display) -> VectorError {
    VectorError::Store(format!("qdrant server: {e}"))
}

impl QdrantStore {
    /// Connects and makes sure the collection and its payload indexes exist.
    pub async fn connect(url: &str, api_key: Option<&str>, collection: &str) -> Result<QdrantStore, VectorError> {
        let client = Qdrant::from_url(url)
            .api_key(api_key.map(str::to_string))
            // Server versions differ across deployments; the calls used here are stable.
            .skip_compatibility_check()
            .build()
            .map_err(err)?;
        if !client.collection_exists(collection).await.map_err(err)? {
            create_collection(&client, collection).await?;
        } else if !has_words(&client, collection).await? {
            // A collection cannot add a vector: made anew, empty, it is
            // filled from SQL (the truth) by the start-up check, with the
            // tags and lines its points lacked too.
            tracing::warn!("Qdrant collection {collection} predates recall by words and tags: rebuilding it from SQL");
            client.delete_collection(collection).await.map_err(err)?;
            create_collection(&client, collection).await?;
        }
        for (field, kind) in INDEXED_FIELDS {
            let kind = match kind {
                FieldKind::Keyword => FieldType::Keyword,
                FieldKind::Bool => FieldType::Bool,
                FieldKind::Integer => FieldType::Integer,
            };
            let index = CreateFieldIndexCollectionBuilder::new(collection, field, kind).wait(true);
            client.create_field_index(index).await.map_err(err)?;
        }
        Ok(QdrantStore {
            client,
            collection: collection.to_string(),
        })
    }

    fn ids(ids: &[MemoryId]) -> PointsIdsList {
        PointsIdsList {
            ids: ids.iter().map(|id| PointId::from(id.to_string())).collect(),
        }
    }
}

/// Meaning as the unnamed dense vector, words as the sparse one (BM25).
async fn create_collection(client: &Qdrant, collection: &str) -> Result<(), VectorError> {
    let vectors = VectorParamsBuilder::new(DIMENSIONS as u64, Distance::Cosine);
    let mut sparse = SparseVectorsConfigBuilder::default();
    sparse.add_named_vector_params(
        TEXT_VECTOR,
        SparseVectorParamsBuilder::default().modifier(Modifier::Idf),
    );
    let create = CreateCollectionBuilder::new(collection)
        .vectors_config(vectors)
        .sparse_vectors_config(sparse);
    client.create_collection(create).await.map_err(err)?;
    Ok(())
}

async fn has_words(client: &Qdrant, collection: &str) -> Result<bool, VectorError> {
    let info = client.collection_info(collection).await.map_err(err)?;
    Ok(info
        .result
        .and_then(|i| i.config?.params?.sparse_vectors_config)
        .is_some_and(|c| c.map.contains_key(TEXT_VECTOR)))
}

fn keyword(field: &str, value: String) -> Condition {
    Condition::matches(field, value)
}

fn to_filter(f: &SearchFilter) -> Filter {
    let mut must: Vec<Condition> = f
        .persona_id
        .iter()
        .map(|p| keyword("persona_id", p.to_string()))
        .collect();
    let mut owners: Vec<Condition> = f
        .player_id
        .iter()
        .map(|p| keyword("player_id", p.to_string()))
        .collect();
    if f.include_lore {
        owners.push(Condition::matches("lore", true));
    }
    must.push(Filter::should(owners).into());
    if let Some(board) = &f.board {
        let places = board.places().into_iter().map(|(field, v)| keyword(field, v));
        must.push(Filter::should(places).into());
    }
    if !f.types.is_empty() {
        let types: Vec<String> = f.types.iter().map(|t| t.as_str().to_string()).collect();
        must.push(Condition::matches("memory_type", types));
    }
    if !f.tags.is_empty() {
        must.push(Condition::matches("tags", f.tags.clone()));
    }
    if f.created_after.is_some() || f.created_before.is_some() {
        let range = Range {
            gte: f.created_after.map(|t| t as f64),
            lt: f.created_before.map(|t| t as f64),
            ..Range::default()
        };
        must.push(Condition::range("created_at", range));
    }
    let mut must_not = Vec::new();
    if !f.include_unrecallable {
        // Points indexed before the flag existed lack it and stay recallable.
        must_not.push(Condition::matches("recallable", false));
    }
    if !f.exclude_ids.is_empty() {
        must_not.push(Condition::has_id(
            f.exclude_ids.iter().map(|id| PointId::from(id.to_string())),
        ));
    }
    if let Some((match_id, since)) = f.exclude_created_in_match_since {
        let recent = Range {
            gte: Some(since as f64),
            ..Range::default()
        };
        let this_match = Filter::must([
            keyword("match_id", match_id.to_string()),
            Condition::range("created_at", recent),
        ]);
        must_not.push(this_match.into());
    }
    Filter {
        must,
        must_not,
        ..Filter::default()
    }
}

/// A point: meaning as the unnamed dense vector, words (when stop words
/// leave any) as the sparse one.
fn to_point(m: IndexedMemory) -> PointStruct {
    let payload = Payload::try_from(m.payload()).expect("a JSON object is a payload");
    let mut vectors = NamedVectors::default().add_vector("", qdrant_client::qdrant::Vector::new_dense(m.vector));
    if !m.text.is_empty() {
        vectors = vectors.add_vector(
            TEXT_VECTOR,
            qdrant_client::qdrant::Vector::new_sparse(m.text.indices, m.text.values),
        );
    }
    PointStruct::new(m.id.to_string(), vectors, payload)
}

/// Qdrant reads an empty `should` as "no condition"; we mean "nothing".
fn matches_nothing(filter: &SearchFilter, limit: usize) -> bool {
    let no_owner = filter.player_id.is_none() && !filter.include_lore;
    let no_place = filter.board.as_ref().is_some_and(|b| b.is_empty());
    no_owner || no_place || limit == 0
}

fn hits(found: Vec<ScoredPoint>) -> Vec<Hit> {
    found
        .into_iter()
        .filter_map(|p| match p.id?.point_id_options? {
            PointIdOptions::Uuid(u) => Some(Hit {
                id: u.parse().ok()?,
                score: p.score,
            }),
            PointIdOptions::Num(_) => None,
        })
        .collect()
}

#[async_trait]
impl VectorStore for QdrantStore {
    async fn upsert(&self, points: Vec<IndexedMemory>) -> Result<(), VectorError> {
        let points: Vec<PointStruct> = points.into_iter().map(to_point).collect();
        let request = UpsertPointsBuilder::new(&self.collection, points).wait(true);
        self.client.upsert_points(request).await.map_err(err)?;
        Ok(())
    }

    async fn delete(&self, ids: Vec<MemoryId>) -> Result<(), VectorError> {
        let request = DeletePointsBuilder::new(&self.collection)
            .points(Self::ids(&ids))
            .wait(true);
        self.client.delete_points(request).await.map_err(err)?;
        Ok(())
    }

    async fn search(&self, vector: Vec<f32>, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        if matches_nothing(&filter, limit) {
            return Ok(Vec::new());
        }
        let request = SearchPointsBuilder::new(&self.collection, vector, limit as u64).filter(to_filter(&filter));
        let found = self.client.search_points(request).await.map_err(err)?;
        Ok(hits(found.result))
    }

    async fn search_words(&self, words: Sparse, filter: SearchFilter, limit: usize) -> Result<Vec<Hit>, VectorError> {
        if words.is_empty() || matches_nothing(&filter, limit) {
            return Ok(Vec::new());
        }
        let request = SearchPointsBuilder::new(&self.collection, words.values, limit as u64)
            .sparse_indices(words.indices)
            .vector_name(TEXT_VECTOR)
            .filter(to_filter(&filter));
        let found = self.client.search_points(request).await.map_err(err)?;
        Ok(hits(found.result))
    }

    async fn count(&self) -> Result<u64, VectorError> {
        let request = CountPointsBuilder::new(&self.collection).exact(true);
        let counted = self.client.count(request).await.map_err(err)?;
        Ok(counted.result.map(|r| r.count).unwrap_or(0))
    }

    async fn set_recallable(&self, ids: Vec<MemoryId>, recallable: bool) -> Result<(), VectorError> {
        let payload = Payload::try_from(json!({ "recallable": recallable })).expect("a JSON object is a payload");
        let request = SetPayloadPointsBuilder::new(&self.collection, payload)
            .points_selector(Self::ids(&ids))
            .wait(true);
        self.client.set_payload(request).await.map_err(err)?;
        Ok(())
    }

    async fn vectors(&self, ids: Vec<MemoryId>) -> Result<HashMap<MemoryId, Vec<f32>>, VectorError> {
        let ids: Vec<PointId> = ids.iter().map(|id| PointId::from(id.to_string())).collect();
        let request = GetPointsBuilder::new(&self.collection, ids)
            .with_payload(false)
            .with_vectors(true);
        let found = self.client.get_points(request).await.map_err(err)?;
        Ok(found
            .result
            .into_iter()
            .filter_map(|p| {
                let Some(PointIdOptions::Uuid(u)) = p.id?.point_id_options else {
                    return None;
                };
                // A point with words holds two vectors, the dense one unnamed.
                let v = match p.vectors?.vectors_options? {
                    VectorsOptions::Vector(v) => v,
                    VectorsOptions::Vectors(mut named) => named.vectors.remove("")?,
                };
                let Vector::Dense(dense) = v.into_vector() else {
                    return None;
                };
                Some((u.parse().ok()?, dense.data))
            })
            .collect())
    }

    async fn states(&self) -> Result<Vec<(MemoryId, bool)>, VectorError> {
        let (mut all, mut offset) = (Vec::new(), None);
        loop {
            let mut request = ScrollPointsBuilder::new(&self.collection)
                .limit(10_000)
                .with_payload(true)
                .with_vectors(false);
            if let Some(o) = offset.take() {
                request = request.offset(o);
            }
            let page = self.client.scroll(request).await.map_err(err)?;
            for p in page.result {
                let Some(PointIdOptions::Uuid(u)) = p.id.and_then(|i| i.point_id_options) else {
                    continue;
                };
                let recallable = p.payload.get("recallable").and_then(|v| v.as_bool()).unwrap_or(true);
                if let Ok(id) = u.parse() {
                    all.push((id, recallable));
                }
            }
            match page.next_page_offset {
                Some(next) => offset = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// The server optimises and persists by itself.
    async fn maintain(&self) -> Result<(), VectorError> {
        Ok(())
    }
}
