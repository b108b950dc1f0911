# Sourced by build and test: where Flow and GenStage (pinned in mix.exs) come from.
# The shared vendor folder of their unmodified sources when it is there (this project's machines,
# which cannot reach Hex): mix.exs compiles them into _build/<env>/lib with no Hex at all.
# Otherwise Hex, as on a user's machine: Hex is installed into MIX_HOME if missing and the pinned
# versions are fetched with `mix deps.get`.
export MIX_HOME="${MIX_HOME:-$PWD/_build/mix_home}"
export PARBENCH_HEX_VENDOR="${PARBENCH_HEX_VENDOR-$(cd ../.. && pwd)/../shared/vendor/hex}"

fetch_pinned_deps() {
  if [[ -d "$PARBENCH_HEX_VENDOR" ]]; then
    echo "Flow and GenStage: vendored sources in $PARBENCH_HEX_VENDOR (no Hex)" >&2
    export HEX_OFFLINE=1
  else
    echo "Flow and GenStage: from Hex (no vendor folder at '${PARBENCH_HEX_VENDOR}')" >&2
    mix local.hex --force --if-missing >&2
    mix deps.get >&2
  fi
}
