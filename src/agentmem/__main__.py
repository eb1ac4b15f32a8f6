from agentmem.entry import main

main()
