defmodule Parbench.MixProject do
  @moduledoc "The Elixir/Erlang implementation of the parbench workloads; its one dependency is Flow (with GenStage)."
  use Mix.Project

  Code.require_file("vendored_hex.exs", __DIR__)

  # Flow and GenStage at exactly these versions, whichever route builds them (docs/runtimes/elixir.md).
  @pinned [{:gen_stage, "1.3.2", []}, {:flow, "1.2.4", [:gen_stage]}]

  def project do
    [
      app: :parbench,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: false,
      test_paths: ["tests"],
      # `run` starts the VM on the ebin folders alone (no consolidated protocols), and Mix's
      # incremental consolidation does not notice a vendored Flow (its Enumerable implementation)
      # that appears after a first build; tests run the same unconsolidated protocols as `run`.
      consolidate_protocols: false,
      deps: deps()
    ]
  end

  # :odbc and :crypto come with Erlang/OTP (Debian's erlang-odbc, erlang-crypto).
  def application do
    [extra_applications: [:logger, :crypto, :odbc] ++ vendored_applications()]
  end

  @doc """
  Where Flow and GenStage come from: the shared vendor folder of their unmodified sources when it
  is there (PARBENCH_HEX_VENDOR, default ../shared/vendor/hex from the repository root: machines
  without Hex), else Hex (`mix deps.get`). Mix `path:` dependencies cannot serve the vendored
  copies, since Flow's own mix.exs asks for gen_stage from Hex.
  """
  def vendor_dir, do: System.get_env("PARBENCH_HEX_VENDOR") || Path.expand("../../../shared/vendor/hex", __DIR__)

  # build and test set PARBENCH_HEX_VENDOR (deps_route.bash), empty where there is no vendor folder.

  defp vendored?, do: File.dir?(vendor_dir())

  defp deps do
    if vendored?() do
      lib_dir = Path.expand("_build/#{Mix.env()}/lib", __DIR__)
      Parbench.VendoredHex.ensure_built(@pinned, vendor_dir(), lib_dir)
      []
    else
      for {app, version, _applications} <- @pinned, do: {app, "== " <> version}
    end
  end

  # Mix adds Hex dependencies to the applications itself; vendored ones are named here.
  defp vendored_applications, do: if(vendored?(), do: Enum.map(@pinned, &elem(&1, 0)), else: [])
end
