#!/usr/bin/env bash
# Builds the controller image without a Docker daemon and without pulling anything: an OCI
# image layout (and the same as one tar archive) written from the release binary and the few
# shared libraries it links against, copied from this machine.
#
#   scripts/image.sh                          # cargo build --release, image in target/image/
#   scripts/image.sh --binary PATH            # package an already built binary instead
#   scripts/image.sh --out DIR                # write the layout and the archive to DIR
#   scripts/image.sh --tag NAME:TAG           # the reference name in index.json (default kubectl-kueue:<version>)
#
# Writes DIR/oci/ (an OCI image layout: oci-layout, index.json, blobs/sha256/...) and
# DIR/kubectl-kueue-image.tar (that layout as one archive), then prints the archive path and
# the manifest digest. Load or push it with what the cluster side has, for example:
#
#   docker load -i target/image/kubectl-kueue-image.tar        # Docker 25+ reads OCI archives
#   podman load -i target/image/kubectl-kueue-image.tar
#   skopeo copy oci:target/image/oci:kubectl-kueue:0.1.0 docker://registry.example/kubectl-kueue:0.1.0
#   kind load image-archive target/image/kubectl-kueue-image.tar
#
# then pin it by digest: kubectl kueue install --image registry.example/kubectl-kueue@sha256:<digest>.
#
# Why this way: a daemonless, registry-free build on any machine with bash, tar, gzip and
# sha256sum; the layers are reproducible (sorted entries, fixed owner and times), so the same
# binary gives the same digest. The image holds the binary, the dynamic loader and the glibc
# and libgcc libraries it needs (what distroless/cc holds), CA certificates, /etc/passwd with
# the nonroot user 65532, and an empty /tmp; it runs as 65532:65532 and needs nothing writable.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${root}/target/image"
binary=""
tag=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "scripts/image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

for tool in tar gzip sha256sum ldd; do
  command -v "$tool" >/dev/null || { echo "scripts/image.sh: $tool is needed to build the image" >&2; exit 1; }
done
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) arch=amd64 ;;
  Linux/aarch64) arch=arm64 ;;
  *) echo "scripts/image.sh: builds linux/amd64 and linux/arm64 images on Linux only (this is $(uname -s)/$(uname -m))" >&2; exit 1 ;;
esac

version="$(sed -n 's/^version = "\(.*\)"/\1/p' "${root}/Cargo.toml" | head -1)"
tag="${tag:-kubectl-kueue:${version}}"
if [[ -z "$binary" ]]; then
  (cd "$root" && cargo build --release --locked --bin kubectl-kueue)
  binary="${root}/target/release/kubectl-kueue"
fi
[[ -x "$binary" ]] || { echo "scripts/image.sh: $binary is not an executable" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="${work}/rootfs"
mkdir -p "${rootfs}/etc/ssl/certs" "${rootfs}/tmp"
cp "$binary" "${rootfs}/kubectl-kueue"
strip "${rootfs}/kubectl-kueue" 2>/dev/null || true
# The loader and every library the binary links against, at the paths it looks for them.
ldd "$binary" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | sort -u | while read -r lib; do
  mkdir -p "${rootfs}$(dirname "$lib")"
  cp -L "$lib" "${rootfs}${lib}"
done
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  cp /etc/ssl/certs/ca-certificates.crt "${rootfs}/etc/ssl/certs/"
fi
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"${rootfs}/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"${rootfs}/etc/group"
chmod 1777 "${rootfs}/tmp"

layout="${out}/oci"
rm -rf "$layout"
mkdir -p "${layout}/blobs/sha256"
blob() { # FILE MEDIATYPE -> writes the blob, prints a descriptor
  local digest size
  digest="$(sha256sum "$1" | cut -d' ' -f1)"
  size="$(stat -c %s "$1")"
  cp "$1" "${layout}/blobs/sha256/${digest}"
  printf '{"mediaType":"%s","digest":"sha256:%s","size":%s}' "$2" "$digest" "$size"
}

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$rootfs" -cf "${work}/layer.tar" .
diff_id="$(sha256sum "${work}/layer.tar" | cut -d' ' -f1)"
gzip -n -9 <"${work}/layer.tar" >"${work}/layer.tar.gz"
layer="$(blob "${work}/layer.tar.gz" application/vnd.oci.image.layer.v1.tar+gzip)"

cat >"${work}/config.json" <<EOF
{"architecture":"${arch}","os":"linux","config":{"User":"65532:65532","Entrypoint":["/kubectl-kueue"],"Cmd":["run-controller"],"WorkingDir":"/","Env":["PATH=/"],"ExposedPorts":{"8443/tcp":{},"8081/tcp":{}},"Labels":{"org.opencontainers.image.title":"kubectl-kueue","org.opencontainers.image.version":"${version}","org.opencontainers.image.source":"https://github.com/kubectl-kueue/kubectl-kueue"}},"rootfs":{"type":"layers","diff_ids":["sha256:${diff_id}"]},"history":[{"created_by":"scripts/image.sh: the kubectl-kueue binary and the libraries it links against"}]}
EOF
config="$(blob "${work}/config.json" application/vnd.oci.image.config.v1+json)"

printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":%s,"layers":[%s]}' \
  "$config" "$layer" >"${work}/manifest.json"
manifest="$(blob "${work}/manifest.json" application/vnd.oci.image.manifest.v1+json)"
manifest_digest="$(sha256sum "${work}/manifest.json" | cut -d' ' -f1)"

# The ref name annotation is the tag (what skopeo's oci:DIR:TAG reads); containerd and
# docker load read the full image name.
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}' \
  "${manifest%\}},\"annotations\":{\"org.opencontainers.image.ref.name\":\"${tag##*:}\",\"io.containerd.image.name\":\"${tag}\"}}" \
  >"${layout}/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"${layout}/oci-layout"

archive="${out}/kubectl-kueue-image.tar"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$layout" -cf "$archive" .
echo "$archive"
echo "sha256:${manifest_digest}"
