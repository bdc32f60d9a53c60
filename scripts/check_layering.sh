#!/usr/bin/env bash
# Fails when a layer includes a header of a layer above it (docs/architecture.md
# "Layers"). The link dependencies catch a call into a higher layer only when
# the lower layer's own tests link; an include that uses only types or inline
# functions would slip through, so this script checks the includes themselves.
#   scripts/check_layering.sh        (exit 1 and one line per wrong include)
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(base stats io format cell sim asm db report sqlrun lab)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
bad=0
for layer in "${layers[@]}"; do
  for dir in "cellsim/$layer" "include/cellsim/$layer"; do
    [ -d "$dir" ] || continue
    while IFS=: read -r file line text; do
      inc=$(sed -E 's/.*#include "cellsim\/([a-z_]+)[/.].*/\1/' <<<"$text")
      # "cellsim/cellsim.h" is the Lab header: the top library layer.
      [ "$inc" = cellsim ] && inc=lab
      [ "$inc" = cli ] && inc=cli_top
      r=${rank[$inc]:-99}
      if ((r > ${rank[$layer]})); then
        echo "$file:$line: layer '$layer' includes a header of '$inc' above it: $text"
        bad=1
      fi
    done < <(grep -Hn '^#include "cellsim/' -r "$dir" --include='*.h' --include='*.cc' || true)
  done
done
if ((bad)); then
  echo "check_layering: lower layers must not include higher ones (docs/architecture.md)" >&2
  exit 1
fi
echo "check_layering: every layer includes only itself and the layers below it"
