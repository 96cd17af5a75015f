//! The visibility API's front-proxy authentication
//! (`controller::visibility::auth::FrontProxy`): whom the API server's front proxy vouches
//! for, from its client certificate's common name and the `X-Remote-*` headers.

#![cfg(feature = "cli")]

use std::collections::BTreeMap;

use axum::http::HeaderMap;
use kubectl_kueue::controller::visibility::auth::FrontProxy;
use rustls::pki_types::CertificateDer;

use axum::http::HeaderValue;

fn certificate(cn: &str) -> (String, CertificateDer<'static>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, cn);
    let cert = params.signed_by(&key, &ca).unwrap();
    (ca.pem(), cert.der().clone())
}

fn proxy(ca: &str, allowed: &str) -> FrontProxy {
    let data: BTreeMap<String, String> = [
        ("requestheader-client-ca-file", ca),
        ("requestheader-allowed-names", allowed),
        ("requestheader-username-headers", r#"["X-Remote-User"]"#),
        ("requestheader-group-headers", r#"["X-Remote-Group"]"#),
        (
            "requestheader-extra-headers-prefix",
            r#"["X-Remote-Extra-"]"#,
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    FrontProxy::from_data(&data).expect("settings")
}

fn headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("x-remote-user", HeaderValue::from_static("alice"));
    h.append("x-remote-group", HeaderValue::from_static("team-a"));
    h.append(
        "x-remote-group",
        HeaderValue::from_static("system:authenticated"),
    );
    h.insert("x-remote-extra-scopes", HeaderValue::from_static("view"));
    h
}

#[test]
fn the_front_proxy_names_the_user_when_its_common_name_is_allowed() {
    let (ca, cert) = certificate("front-proxy-client");
    let user = proxy(&ca, r#"["front-proxy-client"]"#)
        .user(&cert, &headers())
        .expect("a user");
    assert_eq!(user.username.as_deref(), Some("alice"));
    assert_eq!(
        user.groups.unwrap(),
        vec!["team-a".to_string(), "system:authenticated".to_string()]
    );
    assert_eq!(user.extra.unwrap()["scopes"], vec!["view".to_string()]);
    // Any common name when none is listed.
    assert!(proxy(&ca, "[]").user(&cert, &headers()).is_some());
}

#[test]
fn other_common_names_and_requests_without_a_user_header_are_not_vouched_for() {
    let (ca, cert) = certificate("someone-else");
    assert!(
        proxy(&ca, r#"["front-proxy-client"]"#)
            .user(&cert, &headers())
            .is_none()
    );
    let (ca, cert) = certificate("front-proxy-client");
    assert!(proxy(&ca, "[]").user(&cert, &HeaderMap::new()).is_none());
    assert!(FrontProxy::from_data(&BTreeMap::new()).is_none());
}
