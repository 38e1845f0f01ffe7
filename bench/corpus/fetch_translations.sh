#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches the real corpus the dedup benchmarks read: Debian's package
# description translations (Translation-XX) of four releases and twenty
# languages, through apt (signatures checked) into a private directory, so the
# system's own package lists are untouched. Then builds an SQLite database of
# every distinct description: texts(id, release, lang, package, body).
#
#   bash bench/corpus/fetch_translations.sh [DIR]   (default /tmp/simhash-corpus)
#
# Needs apt, lz4 and python3 (Debian's). About 110 MB downloaded, 30 s.
set -euo pipefail
dir=${1:-/tmp/simhash-corpus}
releases=${RELEASES:-"bullseye bookworm trixie sid"}
languages=${LANGUAGES:-"en,de,fr,es,it,ja,zh_CN,ru,pt_BR,pl,nl,sv,cs,hu,fi,da,uk,ko,vi,ca"}
mkdir -p "$dir/lists/partial" "$dir/etc"
: >"$dir/etc/sources.list"
for release in $releases; do
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
    "http://deb.debian.org/debian $release main" >>"$dir/etc/sources.list"
done
apt-get update -q \
  -o Dir::Etc::sourcelist="$dir/etc/sources.list" -o Dir::Etc::sourceparts=- \
  -o Dir::State::Lists="$dir/lists" -o Acquire::Languages="$languages" \
  -o Acquire::IndexTargets::deb::Packages::DefaultEnabled=false >/dev/null
/usr/bin/python3 "$(dirname "$0")/build_corpus.py" "$dir/lists" "$dir/translations.db"
