//! A kubelet stand-in: runs the container of a pod template (a Deployment's, as the API server
//! holds it) from an unpacked image root filesystem, the way a kubelet and a container runtime
//! would on this machine, for the in-cluster e2e test. Needs root.
//!
//! What the process gets, as in a pod: a private mount namespace, the image's filesystem as
//! its root (remounted read-only when the container's `readOnlyRootFilesystem` says so) with
//! `/proc`; the service-account token, the cluster CA and the namespace at
//! `/var/run/secrets/kubernetes.io/serviceaccount/`; its `configMap` volumes at their mount
//! paths; the container's `env` (plain values and the pod's own fields) and the image's;
//! `KUBERNETES_SERVICE_HOST/PORT` pointing at the API server; the user and group of the
//! security contexts (else the image's), no supplementary groups, and `no_new_privs` unless
//! privilege escalation is allowed; the container's command and args (else the image's
//! entrypoint and cmd). What it does not get: its own network namespace (the API server is on
//! 127.0.0.1, so the pod shares the host's network, like `hostNetwork: true`), a PID
//! namespace, `/dev`, `/etc/hosts`, cgroup limits.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use k8s_openapi::api::core::v1::{ConfigMap, Container, PodSpec, PodTemplateSpec};
use kube::Api;
use serde_json::Value;

use crate::support::cluster::Cluster;
use crate::support::controller::kubectl;
use crate::support::process::ManagedProcess;

/// Where every pod finds its service account's credentials.
pub const SERVICE_ACCOUNT_DIR: &str = "var/run/secrets/kubernetes.io/serviceaccount";

/// What the stand-in needs to know besides the template.
pub struct PodRun<'a> {
    pub cluster: &'a Cluster,
    pub client: kube::Client,
    /// The image's root filesystem (a fresh unpacked copy: the files of the pod are written in).
    pub rootfs: PathBuf,
    /// The image configuration (`Entrypoint`, `Cmd`, `User`, `Env`, `WorkingDir`).
    pub image_config: Value,
    /// The pod's namespace and name.
    pub namespace: String,
    pub name: String,
    /// What the test adds to the container's environment (a log level).
    pub extra_env: Vec<(String, String)>,
}

impl PodRun<'_> {
    /// Starts the first container of `template`; its output goes to the cluster's log
    /// directory as `<name>.log`.
    pub async fn start(&self, template: &PodTemplateSpec) -> ManagedProcess {
        let spec = template.spec.as_ref().expect("the template has a pod spec");
        assert!(
            spec.init_containers.as_ref().is_none_or(Vec::is_empty),
            "init containers are not supported"
        );
        let container = &spec.containers[0];
        self.write_service_account(spec);
        self.write_volumes(spec, container).await;
        let image = &self.image_config["config"];
        let (uid, gid) = user(spec, container, image);
        if run_as_non_root(spec, container) {
            assert_ne!(uid, 0, "runAsNonRoot with user 0");
        }
        let sc = container.security_context.as_ref();
        let read_only = sc.and_then(|c| c.read_only_root_filesystem) == Some(true);
        let no_new_privs = sc.and_then(|c| c.allow_privilege_escalation) == Some(false);
        std::fs::create_dir_all(self.rootfs.join("proc")).unwrap();

        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
                .unwrap_or_default()
        };
        let argv: Vec<String> = match (&container.command, &container.args) {
            (Some(cmd), args) => cmd.iter().chain(args.iter().flatten()).cloned().collect(),
            (None, Some(args)) => strings(&image["Entrypoint"])
                .into_iter()
                .chain(args.iter().cloned())
                .collect(),
            (None, None) => strings(&image["Entrypoint"])
                .into_iter()
                .chain(strings(&image["Cmd"]))
                .collect(),
        };
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).env_clear();
        for kv in strings(&image["Env"]) {
            let (k, v) = kv.split_once('=').unwrap();
            cmd.env(k, v);
        }
        let port = self
            .cluster
            .server_url()
            .rsplit(':')
            .next()
            .unwrap()
            .to_string();
        cmd.env("KUBERNETES_SERVICE_HOST", "127.0.0.1")
            .env("KUBERNETES_SERVICE_PORT", &port)
            .env("KUBERNETES_SERVICE_PORT_HTTPS", &port)
            .env("HOSTNAME", &self.name);
        for e in container.env.iter().flatten() {
            cmd.env(&e.name, self.env_value(spec, e));
        }
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        let workdir = container
            .working_dir
            .clone()
            .or_else(|| image["WorkingDir"].as_str().map(str::to_string))
            .unwrap_or_else(|| "/".into());

        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).unwrap();
        let root = c(&self.rootfs);
        let proc_dir = c(&self.rootfs.join("proc"));
        let slash = CString::new("/").unwrap();
        let proc_type = CString::new("proc").unwrap();
        let workdir = CString::new(workdir).unwrap();
        // SAFETY: only system calls between fork and exec, on strings made before the fork.
        unsafe {
            cmd.pre_exec(move || {
                let ok = |r: libc::c_int| {
                    if r == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                };
                let none = std::ptr::null::<libc::c_char>();
                let no_data = std::ptr::null::<libc::c_void>();
                ok(libc::unshare(libc::CLONE_NEWNS))?;
                let private = libc::MS_REC | libc::MS_PRIVATE;
                ok(libc::mount(none, slash.as_ptr(), none, private, no_data))?;
                let bind = libc::MS_BIND | libc::MS_REC;
                ok(libc::mount(
                    root.as_ptr(),
                    root.as_ptr(),
                    none,
                    bind,
                    no_data,
                ))?;
                let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                let proc_name = proc_type.as_ptr();
                ok(libc::mount(
                    proc_name,
                    proc_dir.as_ptr(),
                    proc_name,
                    proc_flags,
                    no_data,
                ))?;
                if read_only {
                    let remount = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
                    ok(libc::mount(none, root.as_ptr(), none, remount, no_data))?;
                }
                ok(libc::chroot(root.as_ptr()))?;
                ok(libc::chdir(workdir.as_ptr()))?;
                ok(libc::setgroups(0, std::ptr::null()))?;
                ok(libc::setgid(gid))?;
                ok(libc::setuid(uid))?;
                if no_new_privs {
                    ok(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
                }
                Ok(())
            });
        }
        self.cluster
            .spawn(&self.name, cmd)
            .expect("start the pod's container")
    }

    /// The token of the pod's service account (as the kubelet's TokenRequest, one hour), the
    /// API server's CA and the pod's namespace.
    fn write_service_account(&self, spec: &PodSpec) {
        let account = spec.service_account_name.as_deref().unwrap_or("default");
        let token = kubectl(
            self.cluster,
            &[
                "create",
                "token",
                account,
                "-n",
                &self.namespace,
                "--duration=1h",
            ],
        );
        let dir = self.rootfs.join(SERVICE_ACCOUNT_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("token"), token.trim()).unwrap();
        std::fs::copy(self.cluster.ca_cert_path(), dir.join("ca.crt")).unwrap();
        std::fs::write(dir.join("namespace"), &self.namespace).unwrap();
    }

    /// Each `configMap` volume the container mounts, its keys (or `items`) as files.
    async fn write_volumes(&self, spec: &PodSpec, container: &Container) {
        let maps: Api<ConfigMap> = Api::namespaced(self.client.clone(), &self.namespace);
        for mount in container.volume_mounts.iter().flatten() {
            let volume = spec
                .volumes
                .iter()
                .flatten()
                .find(|v| v.name == mount.name)
                .unwrap_or_else(|| panic!("volume {} is not in the pod spec", mount.name));
            let source = volume.config_map.as_ref().unwrap_or_else(|| {
                panic!(
                    "volume {}: only configMap volumes are supported",
                    mount.name
                )
            });
            let data = maps
                .get(&source.name)
                .await
                .unwrap()
                .data
                .unwrap_or_default();
            let dir = self.rootfs.join(mount.mount_path.trim_start_matches('/'));
            std::fs::create_dir_all(&dir).unwrap();
            let files: Vec<(String, String)> = match &source.items {
                Some(items) => items
                    .iter()
                    .map(|i| (i.key.clone(), i.path.clone()))
                    .collect(),
                None => data.keys().map(|k| (k.clone(), k.clone())).collect(),
            };
            for (key, path) in files {
                std::fs::write(dir.join(path), &data[&key]).unwrap();
            }
        }
    }

    fn env_value(&self, spec: &PodSpec, e: &k8s_openapi::api::core::v1::EnvVar) -> String {
        if let Some(v) = &e.value {
            return v.clone();
        }
        let field = e
            .value_from
            .as_ref()
            .and_then(|f| f.field_ref.as_ref())
            .unwrap_or_else(|| panic!("env {}: only values and fieldRefs are supported", e.name));
        match field.field_path.as_str() {
            "metadata.name" => self.name.clone(),
            "metadata.namespace" => self.namespace.clone(),
            "spec.serviceAccountName" => spec.service_account_name.clone().unwrap_or_default(),
            "status.podIP" | "status.hostIP" => "127.0.0.1".into(),
            other => panic!("env {}: fieldRef {other} is not supported", e.name),
        }
    }
}

/// The user and group the container runs as: its security context, else the pod's, else the
/// image's `User` (`uid[:gid]`, numeric).
fn user(spec: &PodSpec, container: &Container, image: &Value) -> (libc::uid_t, libc::gid_t) {
    let image_user = image["User"].as_str().unwrap_or("0");
    let (iu, ig) = image_user
        .split_once(':')
        .unwrap_or((image_user, image_user));
    let c = container.security_context.as_ref();
    let p = spec.security_context.as_ref();
    let uid = c
        .and_then(|c| c.run_as_user)
        .or(p.and_then(|p| p.run_as_user))
        .unwrap_or_else(|| iu.parse().expect("a numeric image user"));
    let gid = c
        .and_then(|c| c.run_as_group)
        .or(p.and_then(|p| p.run_as_group))
        .unwrap_or_else(|| ig.parse().expect("a numeric image group"));
    (uid as libc::uid_t, gid as libc::gid_t)
}

fn run_as_non_root(spec: &PodSpec, container: &Container) -> bool {
    container
        .security_context
        .as_ref()
        .and_then(|c| c.run_as_non_root)
        .or(spec
            .security_context
            .as_ref()
            .and_then(|p| p.run_as_non_root))
        == Some(true)
}
