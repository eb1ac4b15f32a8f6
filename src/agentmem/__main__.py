from agentmem.cli import main

main()
