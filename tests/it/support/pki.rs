//! Credentials of a test cluster, made fresh for each one: a CA, the API server's serving
//! certificate (for 127.0.0.1 and localhost) signed by it, the service-account signing key, and
//! one bearer token per identity (a static token file, `--token-auth-file`).
//!
//! Identities are the real ones, so RBAC applies as in a cluster: `admin` is in `system:masters`
//! (what tests and kubectl use); kube-controller-manager and kube-scheduler authenticate as
//! `system:kube-controller-manager` / `system:kube-scheduler`, whose permissions come from the API
//! server's bootstrap RBAC policy; kwok, which stands in for every kubelet, is in `system:masters`.

use std::fs;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

use super::process::random_hex;

/// One identity in the token file.
#[derive(Clone, Debug)]
pub struct Identity {
    pub user: String,
    pub groups: Vec<String>,
    pub token: String,
}

pub struct Pki {
    pub ca_cert: PathBuf,
    pub serving_cert: PathBuf,
    pub serving_key: PathBuf,
    pub sa_key: PathBuf,
    pub sa_pub: PathBuf,
    pub token_file: PathBuf,
    /// The front proxy (the API server's client to aggregated APIs): its own CA, and the
    /// client certificate `front-proxy-client` it signs, as kubeadm sets them up.
    pub front_proxy_ca: PathBuf,
    pub front_proxy_cert: PathBuf,
    pub front_proxy_key: PathBuf,
    pub admin: Identity,
    pub controller_manager: Identity,
    pub scheduler: Identity,
    pub kwok: Identity,
}

fn rc(e: rcgen::Error) -> io::Error {
    io::Error::other(e)
}

impl Pki {
    pub fn create(dir: &Path) -> io::Result<Pki> {
        fs::create_dir_all(dir)?;

        let ca_key = KeyPair::generate().map_err(rc)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(rc)?;
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "kubectl-kueue test CA");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(ca_params, ca_key).map_err(rc)?;

        let serving_key = KeyPair::generate().map_err(rc)?;
        let mut params = CertificateParams::new(vec![
            "localhost".to_string(),
            "kubernetes".to_string(),
            "kubernetes.default".to_string(),
            "kubernetes.default.svc".to_string(),
        ])
        .map_err(rc)?;
        params
            .subject_alt_names
            .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        params
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        let serving = params.signed_by(&serving_key, &ca).map_err(rc)?;

        let sa_key = KeyPair::generate().map_err(rc)?;

        let fp_ca_key = KeyPair::generate().map_err(rc)?;
        let mut fp_ca_params = CertificateParams::new(Vec::<String>::new()).map_err(rc)?;
        fp_ca_params
            .distinguished_name
            .push(DnType::CommonName, "front-proxy-ca");
        fp_ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        fp_ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let fp_ca = CertifiedIssuer::self_signed(fp_ca_params, fp_ca_key).map_err(rc)?;
        let fp_key = KeyPair::generate().map_err(rc)?;
        let mut fp_params = CertificateParams::new(Vec::<String>::new()).map_err(rc)?;
        fp_params
            .distinguished_name
            .push(DnType::CommonName, "front-proxy-client");
        fp_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        fp_params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        let fp_client = fp_params.signed_by(&fp_key, &fp_ca).map_err(rc)?;

        let pki = Pki {
            ca_cert: dir.join("ca.crt"),
            serving_cert: dir.join("apiserver.crt"),
            serving_key: dir.join("apiserver.key"),
            sa_key: dir.join("sa.key"),
            sa_pub: dir.join("sa.pub"),
            token_file: dir.join("tokens.csv"),
            front_proxy_ca: dir.join("front-proxy-ca.crt"),
            front_proxy_cert: dir.join("front-proxy-client.crt"),
            front_proxy_key: dir.join("front-proxy-client.key"),
            admin: identity("admin", &["system:masters"]),
            controller_manager: identity("system:kube-controller-manager", &[]),
            scheduler: identity("system:kube-scheduler", &[]),
            kwok: identity("kwok", &["system:masters"]),
        };
        fs::write(&pki.ca_cert, ca.pem())?;
        fs::write(&pki.serving_cert, serving.pem())?;
        write_private(&pki.serving_key, &serving_key.serialize_pem())?;
        write_private(&pki.sa_key, &sa_key.serialize_pem())?;
        fs::write(&pki.sa_pub, sa_key.public_key_pem())?;
        fs::write(&pki.front_proxy_ca, fp_ca.pem())?;
        fs::write(&pki.front_proxy_cert, fp_client.pem())?;
        write_private(&pki.front_proxy_key, &fp_key.serialize_pem())?;

        let mut tokens = String::new();
        for id in [
            &pki.admin,
            &pki.controller_manager,
            &pki.scheduler,
            &pki.kwok,
        ] {
            // token,user,uid,"group1,group2"
            tokens.push_str(&format!(
                "{},{},{},\"{}\"\n",
                id.token,
                id.user,
                id.user,
                id.groups.join(",")
            ));
        }
        write_private(&pki.token_file, &tokens)?;
        Ok(pki)
    }

    /// A kubeconfig for `id` against the API server at `server`, with the CA pinned.
    pub fn kubeconfig(&self, server: &str, id: &Identity, namespace: &str) -> String {
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: kueue-test
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: {user}
  user:
    token: {token}
contexts:
- name: kueue-test
  context:
    cluster: kueue-test
    user: {user}
    namespace: {namespace}
current-context: kueue-test
",
            ca = self.ca_cert.display(),
            user = id.user,
            token = id.token,
        )
    }
}

fn identity(user: &str, groups: &[&str]) -> Identity {
    Identity {
        user: user.to_string(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        token: random_hex(24),
    }
}

fn write_private(path: &Path, contents: &str) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(contents.as_bytes())
}
