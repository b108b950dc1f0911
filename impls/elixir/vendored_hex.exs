defmodule Parbench.VendoredHex do
  @moduledoc """
  Builds pinned Hex packages from a vendor folder of their unmodified sources, for machines that
  cannot reach Hex: each package's `lib/` is compiled (as `elixirc` would) into the same
  `_build/<env>/lib/<app>/ebin` that Mix uses for a Hex dependency, with an `.app` file whose
  version is read from the package's own mix.exs. Nothing is copied into the project.
  """

  @doc """
  Makes sure every `{app, version, applications}` (in dependency order) is compiled from
  `vendor_dir/<app>-<version>` into `lib_dir/<app>/ebin` and on the code path.
  """
  def ensure_built(packages, vendor_dir, lib_dir) do
    for {app, version, applications} <- packages do
      source = Path.join(vendor_dir, "#{app}-#{version}")
      ebin = Path.join([lib_dir, Atom.to_string(app), "ebin"])
      check_version!(source, app, version)
      if stale?(source, ebin, app, version), do: compile!(source, ebin, app, version, applications)
      Code.prepend_path(ebin)
      ebin
    end
  end

  defp check_version!(source, app, version) do
    mix_exs = Path.join(source, "mix.exs")

    case File.read(mix_exs) do
      {:ok, text} ->
        case Regex.run(~r/@version "([^"]+)"/, text) do
          [_, ^version] -> :ok
          [_, other] -> Mix.raise("#{mix_exs} is #{app} #{other}, but mix.exs pins #{version}")
          nil -> Mix.raise("#{mix_exs} does not say its version (@version)")
        end

      {:error, reason} ->
        Mix.raise("#{app} #{version} is not in the vendor folder (#{mix_exs}: #{:file.format_error(reason)})")
    end
  end

  # Rebuilt when its .app is missing, names another version, or is older than a source file.
  defp stale?(source, ebin, app, version) do
    app_file = Path.join(ebin, "#{app}.app")

    case File.stat(app_file, time: :posix) do
      {:ok, %{mtime: built}} ->
        vsn_of(app_file) != version or Enum.any?(sources(source), &(File.stat!(&1, time: :posix).mtime > built))

      {:error, _} ->
        true
    end
  end

  defp vsn_of(app_file) do
    {:ok, [{:application, _app, spec}]} = :file.consult(app_file)
    to_string(spec[:vsn])
  end

  defp sources(source), do: Path.wildcard(Path.join(source, "lib/**/*.ex"))

  defp compile!(source, ebin, app, version, applications) do
    Mix.shell().info("Compiling #{app} #{version} from #{source} (vendored; Hex is not used)")
    File.rm_rf!(ebin)
    File.mkdir_p!(ebin)

    case Kernel.ParallelCompiler.compile_to_path(sources(source), ebin) do
      {:ok, modules, _warnings} -> write_app_file(ebin, app, version, modules, applications)
      {:error, errors, _warnings} -> Mix.raise("could not compile vendored #{app} #{version}: #{inspect(errors)}")
    end
  end

  defp write_app_file(ebin, app, version, modules, applications) do
    spec = [
      description: ~c"#{app} #{version}, compiled from its vendored Hex sources",
      vsn: String.to_charlist(version),
      modules: Enum.sort(modules),
      registered: [],
      applications: [:kernel, :stdlib, :elixir, :logger | applications]
    ]

    File.write!(Path.join(ebin, "#{app}.app"), :io_lib.format("~p.~n", [{:application, app, spec}]))
  end
end
