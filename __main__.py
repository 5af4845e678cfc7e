from nl2sparql.cli import main

main()
