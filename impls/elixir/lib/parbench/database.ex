defmodule Parbench.Database do
  @moduledoc "Opens the batch-job database through Erlang's :odbc (SQLite or PostgreSQL ODBC driver), since Hex drivers are out of reach."

  # Driver names as Debian's libsqliteodbc and odbc-postgresql register them in /etc/odbcinst.ini;
  # the environment variables let a machine with other names (or .so paths) point elsewhere.
  @sqlite_driver "SQLite3"
  @postgres_driver "PostgreSQL Unicode"
  # Concurrent SQLite writers wait this long for the lock instead of failing (the spec's busy timeout).
  @busy_timeout_ms 600_000

  @doc "The ODBC connection string for a `sqlite:PATH` or `postgresql://user:pass@host:port/db` URL."
  def connection_string("sqlite:" <> path) do
    driver = System.get_env("PARBENCH_SQLITE_ODBC_DRIVER", @sqlite_driver)
    # JournalMode/SyncPragma are the driver's way to set PRAGMA journal_mode=WAL and
    # synchronous=FULL on every connection; a PRAGMA statement cannot, because :odbc opens
    # a transaction first (SQLite refuses to change the journal mode inside one).
    "Driver={#{driver}};Database=#{path};Timeout=#{@busy_timeout_ms};JournalMode=WAL;SyncPragma=FULL"
  end

  def connection_string("postgresql://" <> _ = url), do: postgres_connection_string(URI.parse(url))
  def connection_string("postgres://" <> _ = url), do: postgres_connection_string(URI.parse(url))

  def connection_string(url),
    do: throw({:bad_args, "--db #{inspect(url)} is not valid; valid: sqlite:PATH or postgresql://user:pass@host:port/db"})

  defp postgres_connection_string(uri) do
    driver = System.get_env("PARBENCH_POSTGRES_ODBC_DRIVER", @postgres_driver)
    {user, password} =
      case String.split(uri.userinfo || "", ":", parts: 2) do
        [user, password] -> {URI.decode(user), URI.decode(password)}
        [user] -> {URI.decode(user), ""}
      end

    "Driver={#{driver}};Server=#{uri.host};Port=#{uri.port || 5432};" <>
      "Database=#{String.trim_leading(uri.path || "", "/")};Uid=#{user};Pwd=#{password}"
  end

  @doc """
  Opens a connection owned by the calling process (an :odbc connection can only be used by the
  process that opened it), with explicit transactions and binary strings.
  """
  def connect(connection_string) do
    case :odbc.connect(String.to_charlist(connection_string),
           auto_commit: :off, binary_strings: :on, timeout: :infinity, scrollable_cursors: :off) do
      {:ok, connection} -> connection
      {:error, reason} -> raise "cannot connect through ODBC (#{connection_string}): #{inspect(reason)}"
    end
  end

  @doc """
  Runs `fun` with a fresh connection and closes it afterwards. With `count_cpu` (connections of
  the timed work), the CPU time its odbcserver OS process used is added to the case's
  (Parbench.Protocol.add_child_cpu/1) just before it is closed.
  """
  def with_connection(connection_string, fun, count_cpu \\ true) do
    connection = connect(connection_string)

    try do
      fun.(connection)
    after
      # Ends a read-only transaction left open (the work commits its own), so that the
      # driver closes cleanly instead of logging an incomplete transaction.
      :odbc.commit(connection, :rollback)
      if count_cpu, do: Parbench.Protocol.add_child_cpu(server_cpu_ns(connection))
      :odbc.disconnect(connection)
    end
  end

  # The odbcserver of a connection is an OS process started by the VM's erl_child_setup, not a
  # child of the VM itself, so getrusage(RUSAGE_CHILDREN) never sees it: its utime + stime are
  # read from /proc (10 ms ticks) while it still runs. The port is the first field of the
  # :odbc connection's state record. {0, 0} where any of that is not available.
  defp server_cpu_ns(connection) do
    port = connection |> :sys.get_state() |> elem(1)
    {:os_pid, os_pid} = Port.info(port, :os_pid)
    Parbench.Protocol.proc_stat_cpu_ns(os_pid)
  rescue
    _ -> {0, 0}
  catch
    _, _ -> {0, 0}
  end

  @doc "A parameterised statement that must succeed; returns the selected rows or the update count."
  def query!(connection, sql, params \\ []) do
    result =
      if params == [],
        do: :odbc.sql_query(connection, String.to_charlist(sql)),
        else: :odbc.param_query(connection, String.to_charlist(sql), params)

    case result do
      {:selected, _columns, rows} -> rows
      {:updated, count} -> count
      {:error, reason} -> raise "database error on #{inspect(sql)}: #{inspect(reason)}"
    end
  end

  @doc "Commits the current transaction."
  def commit!(connection) do
    case :odbc.commit(connection, :commit) do
      :ok -> :ok
      {:error, reason} -> raise "commit failed: #{inspect(reason)}"
    end
  end

  @doc """
  Starts a process that owns one connection and runs the functions sent to it, one at a time,
  so that many processes can share it (an :odbc connection answers only its owner).
  """
  def start_server(connection_string) do
    caller = self()
    server = spawn_link(fn -> with_connection(connection_string, fn connection ->
      send(caller, {:database_server_ready, self()})
      serve(connection)
    end) end)

    receive do
      {:database_server_ready, ^server} -> server
    end
  end

  defp serve(connection) do
    receive do
      {:run, from, reference, database_work} ->
        send(from, {reference, database_work.(connection)})
        serve(connection)

      :stop ->
        :ok
    end
  end

  @doc "Runs `database_work.(connection)` on a server's connection and returns its result."
  def run_on(server, database_work) do
    reference = make_ref()
    send(server, {:run, self(), reference, database_work})

    receive do
      {^reference, result} -> result
    end
  end

  @doc "Stops a server and waits until it has closed its connection and exited (the unit is joined)."
  def stop_server(server) do
    monitor = Process.monitor(server)
    send(server, :stop)
    receive(do: ({:DOWN, ^monitor, :process, ^server, _reason} -> :ok))
  end
end
