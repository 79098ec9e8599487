//! A Qdrant server's collection in a backup, when asked for: a snapshot
//! made, downloaded and deleted through Qdrant's REST API, and on restore
//! uploaded into the (new) collection, so a large club's index comes back
//! without embedding every memory again. The index is rebuilt from SQL
//! either way; the snapshot only saves the time.

use std::path::Path;

use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::BackupError;
use crate::config::Config;

/// The REST side of the configured Qdrant server.
pub struct QdrantRest {
    http: reqwest::Client,
    base: String,
    api_key: Option<String>,
    pub collection: String,
}

impl QdrantRest {
    /// The configured server's REST API: `qdrant_rest_url`, else the gRPC
    /// URL's host on the port before (Qdrant's 6333 beside 6334).
    pub fn of(config: &Config) -> Result<QdrantRest, BackupError> {
        let Some(grpc) = &config.qdrant_url else {
            return Err(BackupError::Refused(
                "no Qdrant server is configured (qdrant_url): the embedded index is rebuilt from SQL, a snapshot is for a Qdrant server".into(),
            ));
        };
        let base = match &config.qdrant_rest_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => rest_beside(grpc)?,
        };
        Ok(QdrantRest {
            http: reqwest::Client::new(),
            base,
            api_key: config.qdrant_api_key.clone(),
            collection: config.qdrant_collection.clone(),
        })
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let url = format!("{}/collections/{}{path}", self.base, self.collection);
        let request = self.http.request(method, url);
        match &self.api_key {
            Some(key) => request.header("api-key", key),
            None => request,
        }
    }

    /// Snapshots the collection into `out`; the server's copy is deleted after.
    pub async fn snapshot_into(&self, out: &Path) -> Result<(), BackupError> {
        let made = answer(self.request(reqwest::Method::POST, "/snapshots?wait=true").send().await).await?;
        let name = made["result"]["name"]
            .as_str()
            .ok_or_else(|| BackupError::Tool(format!("Qdrant made a snapshot but named none: {made}")))?
            .to_string();
        let downloaded = self.download(&name, out).await;
        let deleted = self
            .request(reqwest::Method::DELETE, &format!("/snapshots/{name}?wait=true"))
            .send()
            .await;
        downloaded?;
        if let Err(e) = answer(deleted).await {
            tracing::warn!("the snapshot {name} stays on the Qdrant server: {e}");
        }
        Ok(())
    }

    async fn download(&self, name: &str, out: &Path) -> Result<(), BackupError> {
        let response = self
            .request(reqwest::Method::GET, &format!("/snapshots/{name}"))
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| BackupError::Tool(format!("downloading the Qdrant snapshot: {e}")))?;
        let mut file = tokio::fs::File::create(out)
            .await
            .map_err(|e| BackupError::io(out, e))?;
        let mut response = response;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| BackupError::Tool(format!("downloading the Qdrant snapshot: {e}")))?
        {
            file.write_all(&chunk).await.map_err(|e| BackupError::io(out, e))?;
        }
        file.sync_all().await.map_err(|e| BackupError::io(out, e))
    }

    /// The collection's points, or None if it does not exist.
    pub async fn points(&self) -> Result<Option<u64>, BackupError> {
        let sent = self.request(reqwest::Method::GET, "").send().await;
        if let Ok(r) = &sent
            && r.status() == reqwest::StatusCode::NOT_FOUND
        {
            return Ok(None);
        }
        let info = answer(sent).await?;
        Ok(Some(info["result"]["points_count"].as_u64().unwrap_or(0)))
    }

    /// Recovers the collection from the snapshot file (it is made anew).
    pub async fn upload(&self, snapshot: &Path) -> Result<(), BackupError> {
        let form = reqwest::multipart::Form::new()
            .file("snapshot", snapshot)
            .await
            .map_err(|e| BackupError::io(snapshot, e))?;
        let sent = self
            .request(reqwest::Method::POST, "/snapshots/upload?wait=true&priority=snapshot")
            .multipart(form)
            .send()
            .await;
        answer(sent).await.map(|_| ())
    }
}

/// The body of a Qdrant answer, or what went wrong (its own words).
async fn answer(sent: Result<reqwest::Response, reqwest::Error>) -> Result<Value, BackupError> {
    let response = sent.map_err(|e| BackupError::Tool(format!("the Qdrant server did not answer: {e}")))?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        let said = body["status"]["error"]
            .as_str()
            .map_or_else(|| body.to_string(), str::to_string);
        return Err(BackupError::Tool(format!(
            "the Qdrant server answered {status}: {said}"
        )));
    }
    Ok(body)
}

/// The REST URL beside a gRPC one: same host, the port before, no query.
fn rest_beside(grpc: &str) -> Result<String, BackupError> {
    let bad = || BackupError::Refused("cannot tell Qdrant's REST address from qdrant_url: set qdrant_rest_url".into());
    let mut url = reqwest::Url::parse(grpc).map_err(|_| bad())?;
    let port = url.port_or_known_default().filter(|p| *p > 1).ok_or_else(bad)?;
    url.set_port(Some(port - 1)).map_err(|_| bad())?;
    url.set_query(None);
    Ok(url.as_str().trim_end_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_port_is_the_one_before_the_grpc_port() {
        assert_eq!(rest_beside("http://qdrant:6334").unwrap(), "http://qdrant:6333");
        assert_eq!(
            rest_beside("https://q.example:16334?api-key=x").unwrap(),
            "https://q.example:16333"
        );
        assert!(rest_beside("not a url").is_err());
    }
}
