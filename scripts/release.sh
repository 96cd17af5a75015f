#!/usr/bin/env bash
# Builds the release archive of kubectl-kueue for the platform this runs on and fills its
# sha256 (and uri) in a copy of krew-manifest.yaml.
#
#   scripts/release.sh                       # cargo build --release, archive and manifest in target/dist/
#   scripts/release.sh --binary PATH         # package an already built binary instead
#   scripts/release.sh --out DIR             # write the archive and the manifest to DIR
#   scripts/release.sh --in-place            # also update ./krew-manifest.yaml for this platform
#   KUEUE_RELEASE_BASE_URL=https://.../download scripts/release.sh   # where archives are published
#
# The archive is kubectl-kueue_<version>_<os>_<arch>.tar.gz with kubectl-kueue,
# kubectl_complete-kueue and LICENSE at its root (the files krew-manifest.yaml lists).
# Prints the archive path, then the manifest path.
#
# The controller image is built and pushed separately, then installed pinned by its digest
# (a tag can be moved, a digest cannot):
#   docker buildx build --push -t ghcr.io/<owner>/kubectl-kueue:<version> .
#   digest="$(docker buildx imagetools inspect ghcr.io/<owner>/kubectl-kueue:<version> \
#       --format '{{json .Manifest.Digest}}' | tr -d '"')"
#   kubectl kueue install --image "ghcr.io/<owner>/kubectl-kueue@${digest}"
#   kubectl kueue install --print --image "ghcr.io/<owner>/kubectl-kueue@${digest}" > kueue.yaml
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${root}/target/dist"
binary=""
in_place=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --in-place) in_place=1; shift ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "scripts/release.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

version="v$(sed -n 's/^version = "\(.*\)"/\1/p' "${root}/Cargo.toml" | head -1)"
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "scripts/release.sh: unsupported OS $(uname -s) (krew-manifest.yaml has linux and darwin)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "scripts/release.sh: unsupported architecture $(uname -m) (krew-manifest.yaml has amd64 and arm64)" >&2; exit 1 ;;
esac

if [[ -z "${binary}" ]]; then
  (cd "${root}" && cargo build --release --locked --bin kubectl-kueue >&2)
  binary="${root}/target/release/kubectl-kueue"
fi
[[ -x "${binary}" ]] || { echo "scripts/release.sh: ${binary} is not an executable" >&2; exit 1; }

mkdir -p "${out}"
name="kubectl-kueue_${version}_${os}_${arch}"
staging="$(mktemp -d)"
trap 'rm -rf "${staging}"' EXIT
cp "${binary}" "${staging}/kubectl-kueue"
cp "${root}/completions/kubectl_complete-kueue" "${staging}/kubectl_complete-kueue"
cp "${root}/LICENSE" "${staging}/LICENSE"
chmod 0755 "${staging}/kubectl-kueue" "${staging}/kubectl_complete-kueue"
archive="${out}/${name}.tar.gz"
# Stable metadata so the same binary gives the same archive.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2000-01-01 00:00Z' \
  -C "${staging}" -cf - kubectl-kueue kubectl_complete-kueue LICENSE | gzip -n > "${archive}"

if command -v sha256sum >/dev/null 2>&1; then
  sum="$(sha256sum "${archive}" | cut -d' ' -f1)"
else
  sum="$(shasum -a 256 "${archive}" | cut -d' ' -f1)"
fi

base="${KUEUE_RELEASE_BASE_URL:-https://github.com/kubectl-kueue/kubectl-kueue/releases/download}"
uri="${base}/${version}/${name}.tar.gz"
manifest="${out}/krew-manifest.yaml"
# Each platform block starts with a `# <os>-<arch>` comment; fill the block's uri and sha256.
sed -e "s|^  version: .*|  version: ${version}|" \
    -e "/^  # ${os}-${arch}\$/,/^    sha256:/ {
          s|^    uri: .*|    uri: ${uri}|
          s|^    sha256: .*|    sha256: \"${sum}\"|
        }" \
    "${root}/krew-manifest.yaml" > "${manifest}"
grep -q "${sum}" "${manifest}" || { echo "scripts/release.sh: no '# ${os}-${arch}' block in krew-manifest.yaml" >&2; exit 1; }
if [[ "${in_place}" == 1 ]]; then
  cp "${manifest}" "${root}/krew-manifest.yaml"
fi
echo "${archive}"
echo "${manifest}"
