//! Who the client is, for the per-address limits: the socket's peer; behind
//! a proxy the configuration trusts, the address that proxy says it
//! forwarded for; on a request another node of the club relayed, the
//! address that node was reached from. Anyone else's word on it is ignored,
//! so a client cannot pick its own bucket.

use std::net::{IpAddr, Ipv6Addr};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue};

use crate::config::TrustedProxies;

/// The client's address on a relayed request, set by the relaying node
/// and believed only beside the cluster's secret.
pub const RELAYED_FOR: HeaderName = HeaderName::from_static("x-kibitz-client");
const FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const REAL_IP: HeaderName = HeaderName::from_static("x-real-ip");

/// The client's address, as the limiter worked it out (a request
/// extension); none in an in-process test with no socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub Option<IpAddr>);

impl ClientAddress {
    /// Works out the client of a request from `peer` with `headers`;
    /// `relayed`: the request carries the cluster's secret.
    pub fn resolve(peer: Option<IpAddr>, headers: &HeaderMap, proxies: &TrustedProxies, relayed: bool) -> Self {
        if relayed && let Some(client) = header_address(headers.get(&RELAYED_FOR)) {
            return ClientAddress(Some(client));
        }
        let Some(peer) = peer.map(|p| p.to_canonical()) else {
            return ClientAddress(None);
        };
        if !proxies.trusts(peer) {
            return ClientAddress(Some(peer));
        }
        let forwarded = forwarded_client(headers, proxies).or_else(|| header_address(headers.get(&REAL_IP)));
        ClientAddress(Some(forwarded.unwrap_or(peer)))
    }

    /// A rate limit's key: an IPv4 address whole, an IPv6 one by its /64
    /// (a host is usually handed a whole /64, so each of its addresses is
    /// no new client); one shared key without an address.
    pub fn key(&self) -> String {
        match self.0 {
            Some(IpAddr::V4(v4)) => v4.to_string(),
            Some(IpAddr::V6(v6)) => {
                let prefix = u128::from(v6) & !u128::from(u64::MAX);
                format!("{}/64", Ipv6Addr::from(prefix))
            }
            None => "unknown".to_string(),
        }
    }

    /// The header a relaying node sends it in.
    pub fn header(&self) -> Option<HeaderValue> {
        self.0.and_then(|ip| HeaderValue::from_str(&ip.to_string()).ok())
    }
}

/// `X-Forwarded-For` read from the right: each proxy appends the address
/// it was reached from, so the first address that is not a trusted proxy
/// is the client; to its left a client may have written anything. An
/// entry that is no address ends the walk (nothing left of it is believed).
fn forwarded_client(headers: &HeaderMap, proxies: &TrustedProxies) -> Option<IpAddr> {
    let entries: Vec<&str> = headers
        .get_all(&FORWARDED_FOR)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let mut leftmost_trusted = None;
    for entry in entries.iter().rev() {
        let ip = parse_address(entry)?;
        if !proxies.trusts(ip) {
            return Some(ip);
        }
        leftmost_trusted = Some(ip);
    }
    // Every hop a trusted proxy: the client is one of the club's own hosts.
    leftmost_trusted
}

fn header_address(value: Option<&HeaderValue>) -> Option<IpAddr> {
    parse_address(value?.to_str().ok()?.trim())
}

/// An address as proxies write it: bare, or with a port (`[::1]:80`).
fn parse_address(text: &str) -> Option<IpAddr> {
    let ip = text
        .parse::<IpAddr>()
        .or_else(|_| text.parse::<std::net::SocketAddr>().map(|s| s.ip()))
        .ok()?;
    Some(ip.to_canonical())
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    /// The limiter's answer (every request passes it first), else the peer.
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        if let Some(client) = parts.extensions.get::<ClientAddress>() {
            return Ok(*client);
        }
        let info = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>();
        Ok(ClientAddress(info.map(|c| c.0.ip().to_canonical())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append((*k).clone(), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn only_a_trusted_proxy_names_the_client() {
        let proxies: TrustedProxies = "127.0.0.1, 10.0.0.0/8".parse().unwrap();
        let spoofed = headers(&[(&FORWARDED_FOR, "6.6.6.6")]);
        let direct = ClientAddress::resolve(ip("203.0.113.9"), &spoofed, &proxies, false);
        assert_eq!(direct.0, ip("203.0.113.9"), "an untrusted peer's header is ignored");

        let via_nginx = headers(&[(&FORWARDED_FOR, "6.6.6.6, 203.0.113.9")]);
        let client = ClientAddress::resolve(ip("127.0.0.1"), &via_nginx, &proxies, false);
        assert_eq!(
            client.0,
            ip("203.0.113.9"),
            "the rightmost untrusted hop, not what the client wrote"
        );

        let two_proxies = headers(&[(&FORWARDED_FOR, "198.51.100.7, 10.1.2.3")]);
        let client = ClientAddress::resolve(ip("127.0.0.1"), &two_proxies, &proxies, false);
        assert_eq!(client.0, ip("198.51.100.7"), "trusted hops are walked past");

        let garbage = headers(&[(&FORWARDED_FOR, "198.51.100.7, not-an-address")]);
        let client = ClientAddress::resolve(ip("127.0.0.1"), &garbage, &proxies, false);
        assert_eq!(client.0, ip("127.0.0.1"), "nothing left of a bad entry is believed");

        let real_ip = headers(&[(&REAL_IP, "198.51.100.8")]);
        let client = ClientAddress::resolve(ip("127.0.0.1"), &real_ip, &proxies, false);
        assert_eq!(client.0, ip("198.51.100.8"));

        let none = ClientAddress::resolve(ip("127.0.0.1"), &HeaderMap::new(), &proxies, false);
        assert_eq!(
            none.0,
            ip("127.0.0.1"),
            "a trusted proxy that names no one is the client"
        );
    }

    #[test]
    fn a_relayed_request_names_its_client_only_with_the_secret() {
        let proxies = TrustedProxies::default();
        let sent = headers(&[(&RELAYED_FOR, "198.51.100.7")]);
        let relayed = ClientAddress::resolve(ip("10.0.0.6"), &sent, &proxies, true);
        assert_eq!(relayed.0, ip("198.51.100.7"));
        let forged = ClientAddress::resolve(ip("203.0.113.9"), &sent, &proxies, false);
        assert_eq!(forged.0, ip("203.0.113.9"));
    }

    #[test]
    fn ipv6_clients_share_a_bucket_per_64() {
        let a = ClientAddress(ip("2001:db8:1:2:aaaa::1")).key();
        let b = ClientAddress(ip("2001:db8:1:2:ffff:1:2:3")).key();
        let other = ClientAddress(ip("2001:db8:1:3::1")).key();
        assert_eq!(a, b);
        assert_eq!(a, "2001:db8:1:2::/64");
        assert_ne!(a, other);
        let mapped = ClientAddress::resolve(
            ip("::ffff:192.0.2.1"),
            &HeaderMap::new(),
            &TrustedProxies::default(),
            false,
        );
        assert_eq!(mapped.key(), "192.0.2.1", "an IPv4-mapped peer is its IPv4 address");
    }
}
