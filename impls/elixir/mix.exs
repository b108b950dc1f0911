defmodule Parbench.MixProject do
  @moduledoc "The Elixir/Erlang implementation of the parbench workloads, with no Hex dependencies."
  use Mix.Project

  def project do
    [
      app: :parbench,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: false,
      test_paths: ["tests"],
      deps: []
    ]
  end

  # :odbc and :crypto come with Erlang/OTP (Debian's erlang-odbc, erlang-crypto): no Hex needed.
  def application do
    [extra_applications: [:logger, :crypto, :odbc]]
  end
end
