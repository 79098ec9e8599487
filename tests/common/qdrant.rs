//! The Qdrant server some runs keep the suite's memories on (`make
//! test-qdrant`, `make test-scale`): which one, a collection per test
//! server, and deleting it again.

use std::time::Duration;

/// The Qdrant server the suite keeps its memories on (`make test-scale`), if any.
pub fn test_qdrant() -> Option<String> {
    std::env::var("KIBITZ_TEST_QDRANT").ok().filter(|u| !u.is_empty())
}

/// True (after saying so) when the suite runs on a Qdrant server: the
/// calling test is about the embedded index in the data dir.
pub fn skip_unless_embedded(test: &str) -> bool {
    let skip = test_qdrant().is_some();
    if skip {
        eprintln!(
            "skipped {test}: it is about the embedded vector index, and this run keeps memories on a Qdrant server"
        );
    }
    skip
}

/// A Qdrant collection no other test server uses.
pub(super) fn new_collection() -> String {
    format!("kibitz_t_{}", uuid::Uuid::new_v4().simple())
}

/// Deletes a collection a test made: the Qdrant server outlives the suite
/// (`scripts/qdrant-server.sh` reuses it), so its collections would pile
/// up. Through the REST port, the gRPC one's predecessor (that script's
/// layout); a server that is gone has nothing to delete.
pub fn drop_collection(grpc_url: &str, name: &str) {
    use std::io::{Read, Write};
    let Some((host, port)) = grpc_url
        .trim_end_matches('/')
        .rsplit_once("//")
        .and_then(|(_, hp)| hp.rsplit_once(':'))
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
    else {
        return;
    };
    let Ok(mut stream) = std::net::TcpStream::connect((host.as_str(), port - 1)) else {
        return;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let request = format!("DELETE /collections/{name} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_ok() {
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
    }
}
