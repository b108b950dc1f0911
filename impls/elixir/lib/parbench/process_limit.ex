defmodule Parbench.ProcessLimit do
  @moduledoc "Turns the VM's process-table limit into the protocol's limit result instead of a crash."

  @doc """
  Runs `spawning`, and when the VM refuses a new process (`system_limit`), throws the limit
  with the VM's own words: erts logs "Too many processes" and `spawn` raises SystemLimitError.
  """
  def guard(spawning) do
    spawning.()
  rescue
    error in SystemLimitError ->
      throw({:limit,
             "Too many processes (#{Exception.message(error)}: spawn refused at " <>
               "process_limit #{:erlang.system_info(:process_limit)})"})
  end
end
